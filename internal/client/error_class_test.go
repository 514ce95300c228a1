package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
)

// failWith is a client whose every request is answered status, body.
func failWith(t *testing.T, status int, body string) *Client {
	t.Helper()
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		w.Header().Set("X-Request-Id", "req-7")
		writeJSON(w, status, body)
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(2) })
	return c
}

func TestDiagnoseAnswers(t *testing.T) {
	tests := []struct {
		status       int
		body         string
		want         Class
		wantAttempts int
	}{
		{403, `{"code":7,"message":"API key 02ab belongs to no user of organization org-1"}`, ClassCredentials, 0},
		{401, `{"code":16,"message":"stamp signature does not verify"}`, ClassCredentials, 0},
		{404, `{"code":5,"message":"policy p-1 not found"}`, ClassNotFound, 0},
		{400, `{"code":3,"message":"policyName is required"}`, ClassInvalid, 0},
		{429, `{"code":8,"message":"slow down"}`, ClassUnavailable, 3},
		{503, `{"code":14,"message":"unavailable"}`, ClassUnavailable, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			_, err := failWith(t, tt.status, tt.body).ListPolicies(t.Context(), ListPoliciesRequest{})
			d := Diagnose(err)
			if d.Class != tt.want || d.Operation != QueryListPolicies || d.HTTPStatus != tt.status ||
				d.RequestID != "req-7" || d.Attempts != tt.wantAttempts || d.Message == "" {
				t.Errorf("Diagnose(%v) = %+v", err, d)
			}
		})
	}
}

func TestDiagnoseNetworkFailures(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler()) // a certificate this client does not trust
	t.Cleanup(tlsSrv.Close)
	for name, tt := range map[string]struct {
		url     string
		wantTLS bool
	}{"refused": {closed.URL, false}, "untrusted certificate": {tlsSrv.URL, true}} {
		t.Run(name, func(t *testing.T) {
			c, err := New(Config{BaseURL: tt.url, OrganizationID: "org-1", APIPublicKey: testKey.PublicKeyHex(),
				APIPrivateKey: testKey.PrivateKeyHex(), Retries: NoRetries})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.ListPolicies(t.Context(), ListPoliciesRequest{})
			if d := Diagnose(err); d.Class != ClassNetwork || d.TLS != tt.wantTLS || d.Operation != QueryListPolicies || d.Message == "" {
				t.Errorf("Diagnose(%v) = %+v", err, d)
			}
		})
	}
}

func TestDiagnoseActivitiesAndSteps(t *testing.T) {
	failed := &ActivityError{ActivityID: "a-1", Type: "ACTIVITY_TYPE_CREATE_POLICIES", Status: StatusFailed, Fingerprint: "fp",
		Failure: &Status{Code: CodeInvalidArgument, Message: "condition does not parse"}}
	rejected := &ActivityError{ActivityID: "a-2", Type: "ACTIVITY_TYPE_DELETE_POLICY", Status: StatusRejected}
	waiting := &ConsensusNeededError{ActivityID: "a-3", Type: "ACTIVITY_TYPE_UPDATE_POLICY_V2", Status: StatusConsensusNeeded, Fingerprint: "fp3"}
	inner := &APIError{Operation: QueryListActivities, HTTPStatus: 403, Status: Status{Code: CodePermissionDenied, Message: "denied"}}
	tests := []struct {
		name string
		err  error
		want Diagnosis
	}{
		{"failed", failed, Diagnosis{Class: ClassActivityFailed, Message: "condition does not parse", Code: CodeInvalidArgument,
			ActivityID: "a-1", ActivityType: failed.Type, ActivityStatus: StatusFailed, Fingerprint: "fp"}},
		{"rejected", fmt.Errorf("deleting: %w", rejected), Diagnosis{Class: ClassActivityRejected, ActivityID: "a-2",
			ActivityType: rejected.Type, ActivityStatus: StatusRejected}},
		{"waiting", waiting, Diagnosis{Class: ClassAwaitingApproval, ActivityID: "a-3", ActivityType: waiting.Type,
			ActivityStatus: StatusConsensusNeeded, Fingerprint: "fp3"}},
		{"steps, outermost first", &StepError{Step: "outer", Err: &StepError{Step: "looking for an earlier activity",
			Err: &RetryError{Attempts: 6, Last: inner}}}, Diagnosis{Class: ClassCredentials, Operation: QueryListActivities,
			Message: "denied", HTTPStatus: 403, Code: CodePermissionDenied, Attempts: 6,
			Steps: []string{"outer", "looking for an earlier activity"}}},
		{"canceled", fmt.Errorf("list_policies: %w", context.Canceled), Diagnosis{Class: ClassCanceled,
			Message: "list_policies: context canceled"}},
		{"other", fmt.Errorf("something else"), Diagnosis{Class: ClassOther, Message: "something else"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diagnose(tt.err)
			if !slices.Equal(got.Steps, tt.want.Steps) {
				t.Errorf("Steps = %q, want %q", got.Steps, tt.want.Steps)
			}
			got.Steps, tt.want.Steps = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diagnose =\n%+v, want\n%+v", got, tt.want)
			}
		})
	}
}
