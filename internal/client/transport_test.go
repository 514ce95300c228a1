package client

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const completedPolicies = `{"activity":{"id":"act-1","organizationId":"org-1","status":"ACTIVITY_STATUS_COMPLETED",
 "type":"ACTIVITY_TYPE_CREATE_POLICIES","intent":{},"result":{"createPoliciesResult":{"policyIds":["p-1"]}},
 "votes":[],"fingerprint":"fp-1","canApprove":false,"canReject":false,"createdAt":"2026-11-21T22:00:00Z","updatedAt":"2026-11-21T22:00:00Z"}}`

var onePolicy = CreatePoliciesParams{Policies: []PolicyParams{{PolicyName: "p", Effect: EffectAllow, Notes: "n"}}}

func TestRetryResendsIdenticalBytesAndHonoursRetryAfter(t *testing.T) {
	f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "2")
			writeJSON(w, 429, `{"code":8,"message":"slow down","details":[]}`)
		case 2:
			writeJSON(w, 503, `{"code":14,"message":"unavailable","details":[]}`)
		default:
			writeJSON(w, 200, completedPolicies)
		}
	}}
	c, s := newTestClient(t, f)
	got, err := c.CreatePolicies(t.Context(), onePolicy)
	if err != nil {
		t.Fatalf("CreatePolicies: %v", err)
	}
	if len(got.Result.PolicyIDs) != 1 || got.Result.PolicyIDs[0] != "p-1" || got.Activity.ID != "act-1" {
		t.Fatalf("result = %+v, activity %s", got.Result, got.Activity.ID)
	}
	reqs := f.all()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs[1:] {
		if !bytes.Equal(r.Body, reqs[0].Body) {
			t.Errorf("retry %d body differs:\n%s\n%s", i+1, r.Body, reqs[0].Body)
		}
		if r.Header.Get(StampHeader) != reqs[0].Header.Get(StampHeader) {
			t.Errorf("retry %d stamp differs", i+1)
		}
	}
	if !verifyStampIndependently(t, reqs[2].Header.Get(StampHeader), reqs[2].Body, testKey.PublicKeyHex()) {
		t.Error("the stamp does not verify over the bytes that were sent")
	}
	// 2 s from Retry-After, then the second backoff step (10 ms · 2).
	want := []time.Duration{2 * time.Second, 20 * time.Millisecond}
	if w := s.all(); len(w) != 2 || w[0] != want[0] || w[1] != want[1] {
		t.Errorf("waits = %v, want %v", w, want)
	}
}

func TestNoRetryOnOtherErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 413, 500} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			f := &fakeService{answer: func(int, recorded, http.ResponseWriter) {}}
			f.answer = func(_ int, _ recorded, w http.ResponseWriter) {
				writeJSON(w, status, `{"code":3,"message":"bad field policyName","details":[{"@type":"x"}]}`)
			}
			c, s := newTestClient(t, f)
			_, err := c.CreatePolicies(t.Context(), onePolicy)
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v is not an *APIError", err)
			}
			if apiErr.HTTPStatus != status || apiErr.Code != 3 || apiErr.Message != "bad field policyName" || len(apiErr.Details) != 1 {
				t.Errorf("APIError = %+v", apiErr)
			}
			if n := len(f.all()); n != 1 {
				t.Errorf("%d requests, want 1 (no retry)", n)
			}
			if len(s.all()) != 0 {
				t.Errorf("slept %v", s.all())
			}
		})
	}
}

func TestRetryAfterDroppedConnection(t *testing.T) {
	f := &fakeService{}
	f.answer = func(n int, _ recorded, w http.ResponseWriter) {
		if n == 1 {
			hj, ok := w.(http.Hijacker)
			if !ok {
				t.Errorf("%T cannot be hijacked", w)
				return
			}
			conn, _, err := hj.Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		writeJSON(w, 200, completedPolicies)
	}
	c, _ := newTestClient(t, f)
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
		t.Fatalf("CreatePolicies: %v", err)
	}
	reqs := f.all()
	if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Fatalf("want 2 identical requests, got %d", len(reqs))
	}
}

func TestRetryGivesUpAfterMaxRetries(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 503, `{"code":14,"message":"down","details":[]}`)
	}}
	c, s := newTestClient(t, f, func(cfg *Config) { cfg.MaxRetries = 3 })
	_, err := c.Whoami(t.Context(), WhoamiRequest{})
	if err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Fatalf("error = %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 {
		t.Fatalf("error %v does not hold the 503", err)
	}
	if n := len(f.all()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	if w := s.all(); len(w) != 3 || w[0] != want[0] || w[1] != want[1] || w[2] != want[2] {
		t.Errorf("waits = %v, want exponential %v", w, want)
	}
}

func TestNegativeMaxRetriesDisablesRetries(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 502, `{}`) }}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.MaxRetries = -1 })
	if _, err := c.Whoami(t.Context(), WhoamiRequest{}); err == nil {
		t.Fatal("want an error")
	}
	if n := len(f.all()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRetryStopsWhenRetryAfterPassesTheDeadline(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		w.Header().Set("Retry-After", "120")
		writeJSON(w, 429, `{"code":8,"message":"rate limited","details":[]}`)
	}}
	c, s := newTestClient(t, f)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.Whoami(ctx, WhoamiRequest{})
	if err == nil || !strings.Contains(err.Error(), "would pass the deadline") || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("error = %v", err)
	}
	if len(s.all()) != 0 || len(f.all()) != 1 {
		t.Errorf("slept %v over %d requests; want no sleep, 1 request", s.all(), len(f.all()))
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(7*time.Second).Format(http.TimeFormat))
	if d, ok := retryAfter(h, now); !ok || d != 7*time.Second {
		t.Fatalf("retryAfter = %v %v", d, ok)
	}
	h.Set("Retry-After", "soon")
	if _, ok := retryAfter(h, now); ok {
		t.Fatal("a malformed Retry-After was honoured")
	}
}

func TestHalfJitterStaysInRange(t *testing.T) {
	for i := 0; i < 1000; i++ {
		if d := halfJitter(time.Second); d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("halfJitter(1s) = %v", d)
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 200, `{}`) }}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.UserAgent = "terraform-provider-custody/1.2.3" })
	if _, err := c.ListPolicies(t.Context(), ListPoliciesRequest{}); err != nil {
		t.Fatal(err)
	}
	h := f.all()[0].Header
	for k, want := range map[string]string{"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "terraform-provider-custody/1.2.3"} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
