package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestAPIErrorTyping(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		body         string
		wantNotFound bool
		wantMessage  string
	}{
		{"404 with body", 404, `{"code":5,"message":"policy p-9 not found","details":[]}`, true, "policy p-9 not found"},
		{"404 without body", 404, ``, true, "Not Found"},
		{"NOT_FOUND code on 400", 400, `{"code":5,"message":"no such tag","details":[]}`, true, "no such tag"},
		{"invalid argument", 400, `{"code":3,"message":"policyName is required","details":[]}`, false, "policyName is required"},
		{"non-JSON body kept", 502, `<html>bad gateway</html>`, false, "<html>bad gateway</html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
				w.Header().Set("X-Request-Id", "req-42")
				writeJSON(w, tt.status, tt.body)
			}}
			c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = NoRetries })
			_, err := c.GetPolicy(t.Context(), GetPolicyRequest{PolicyID: "p-9"})
			if got := errors.Is(err, ErrNotFound); got != tt.wantNotFound {
				t.Errorf("errors.Is(%v, ErrNotFound) = %v", err, got)
			}
			wrapped := fmt.Errorf("reading policy: %w", err)
			if got := errors.Is(wrapped, ErrNotFound); got != tt.wantNotFound {
				t.Errorf("wrapped: errors.Is = %v", got)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("%v is not an *APIError", err)
			}
			if apiErr.Message != tt.wantMessage || apiErr.HTTPStatus != tt.status || apiErr.RequestID != "req-42" || apiErr.Operation != "get_policy" {
				t.Errorf("APIError = %+v", apiErr)
			}
			for _, part := range []string{"get_policy", fmt.Sprint(tt.status), tt.wantMessage, "req-42"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("message %q lacks %q", err.Error(), part)
				}
			}
		})
	}
}

func TestActivityErrorNotFound(t *testing.T) {
	missing := &ActivityError{ActivityID: "a", Status: StatusFailed, Failure: &Status{Code: CodeNotFound, Message: "policy p-1 not found"}}
	if !errors.Is(missing, ErrNotFound) {
		t.Error("a NOT_FOUND failure must match ErrNotFound")
	}
	other := &ActivityError{ActivityID: "a", Status: StatusFailed, Failure: &Status{Code: CodeInvalidArgument, Message: "bad"}}
	if errors.Is(other, ErrNotFound) {
		t.Error("an INVALID_ARGUMENT failure matched ErrNotFound")
	}
	if errors.Is(&ActivityError{Status: StatusRejected}, ErrNotFound) {
		t.Error("a rejection matched ErrNotFound")
	}
}
