package client

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
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
	reqs := wantIdenticalRequests(t, f.all(), 3)
	if !verifyStampIndependently(t, reqs[2].Header.Get(StampHeader), reqs[2].Body, testKey.PublicKeyHex()) {
		t.Error("the stamp does not verify over the bytes that were sent")
	}
	// 2 s from Retry-After, then the second backoff step (10 ms · 2).
	want := []time.Duration{2 * time.Second, 20 * time.Millisecond}
	if w := s.all(); len(w) != 2 || w[0] != want[0] || w[1] != want[1] {
		t.Errorf("waits = %v, want %v", w, want)
	}
}

// A 4xx other than 429 says the request itself is wrong: resending the same
// bytes cannot help.
func TestNoRetryOnOtherErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 413} {
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
			if apiErr.HTTPStatus != status || apiErr.Code != CodeInvalidArgument || apiErr.Message != "bad field policyName" || len(apiErr.Details) != 1 {
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
	for _, tc := range []struct {
		name, reason string
		hangUp       func(t *testing.T, w http.ResponseWriter)
	}{
		{"closed", "connection dropped (EOF)", hangUp},
		{"reset", "connection reset", resetConnection},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeService{}
			f.answer = func(n int, _ recorded, w http.ResponseWriter) {
				if n == 1 {
					tc.hangUp(t, w)
					return
				}
				writeJSON(w, 200, completedPolicies)
			}
			logs := &logRecorder{}
			c, _ := newTestClient(t, f, logs.config)
			if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
				t.Fatalf("CreatePolicies: %v", err)
			}
			wantIdenticalRequests(t, f.all(), 2)
			if got := logs.reasons(); !slices.Equal(got, []string{tc.reason}) {
				t.Errorf("retry reasons = %q, want %q", got, tc.reason)
			}
		})
	}
}

// A certificate the client does not trust stays untrusted: failing at once
// beats a minute of retries that end in the same error.
func TestNoRetryOnUntrustedCertificate(t *testing.T) {
	var handshakes atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `{}`) }))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			handshakes.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	logs := &logRecorder{}
	c, s := newTestClient(t, &fakeService{}, logs.config, func(cfg *Config) { cfg.BaseURL = srv.URL })
	_, err := c.Whoami(t.Context(), WhoamiRequest{})
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &certErr) || strings.Contains(err.Error(), "gave up") {
		t.Fatalf("error = %v, want the certificate error, not retried", err)
	}
	if n := handshakes.Load(); n != 1 || len(s.all()) != 0 || len(logs.retries()) != 0 {
		t.Errorf("%d connections, waits %v, retries logged %v; want 1 connection and no retry", n, s.all(), logs.retries())
	}
}

// Any 5xx but 501 is retried, submits like queries: a 500 may come after
// the service committed, and the identical resubmission is then answered
// with the same activity. (501 says nothing serves the request:
// TestNotTheServiceIsNotRetried.)
func TestRetryEvery5xx(t *testing.T) {
	calls := map[string]func(*Client) error{
		"submit": func(c *Client) error { _, err := c.CreatePolicies(t.Context(), onePolicy); return err },
		"query":  func(c *Client) error { _, err := c.Whoami(t.Context(), WhoamiRequest{}); return err },
	}
	for _, status := range []int{500, 502, 503, 504, 599} {
		for name, call := range calls {
			t.Run(fmt.Sprintf("%d %s", status, name), func(t *testing.T) {
				f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
					if n == 1 {
						writeJSON(w, status, `{"code":13,"message":"internal error","details":[]}`)
						return
					}
					writeJSON(w, 200, completedPolicies)
				}}
				logs := &logRecorder{}
				c, s := newTestClient(t, f, logs.config)
				if err := call(c); err != nil {
					t.Fatalf("after one %d: %v", status, err)
				}
				reqs := wantIdenticalRequests(t, f.all(), 2)
				if !verifyStampIndependently(t, reqs[1].Header.Get(StampHeader), reqs[1].Body, testKey.PublicKeyHex()) {
					t.Error("the retry's stamp does not verify over its bytes")
				}
				if w := s.all(); len(w) != 1 || w[0] != 10*time.Millisecond {
					t.Errorf("waits = %v, want the first backoff step, 10ms", w)
				}
				if got, want := logs.reasons(), fmt.Sprintf("HTTP %d", status); !slices.Equal(got, []string{want}) {
					t.Errorf("retry reasons = %q, want %q", got, want)
				}
			})
		}
	}
}

// An attempt that times out (the HTTP client's own timeout, the caller's
// context still alive) is retried, whether the answer's headers or its body
// were late.
func TestRetryAfterTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		late func(w http.ResponseWriter, release <-chan struct{})
	}{
		{"headers", func(_ http.ResponseWriter, release <-chan struct{}) { <-release }},
		{"body", func(w http.ResponseWriter, release <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, _ = io.WriteString(w, completedPolicies[:20])
			_ = http.NewResponseController(w).Flush()
			<-release
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
				if n == 1 {
					tc.late(w, release)
					return
				}
				writeJSON(w, 200, completedPolicies)
			}}
			logs := &logRecorder{}
			c, _ := newTestClient(t, f, logs.config, func(cfg *Config) {
				cfg.HTTPClient = &http.Client{Timeout: 200 * time.Millisecond}
			})
			t.Cleanup(func() { close(release) }) // before the server closes, which waits for handlers
			got, err := c.CreatePolicies(t.Context(), onePolicy)
			if err != nil || got.Activity.ID != "act-1" {
				t.Fatalf("CreatePolicies = %+v, %v; want the answer to the retry", got, err)
			}
			wantIdenticalRequests(t, f.all(), 2)
			if got := logs.reasons(); !slices.Equal(got, []string{"timeout"}) {
				t.Errorf("retry reasons = %q, want timeout", got)
			}
		})
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

// hangUp closes the connection without an answer.
func hangUp(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	conn := hijack(t, w)
	if conn != nil {
		_ = conn.Close()
	}
}

// resetConnection aborts the connection: with linger 0, close sends a RST.
func resetConnection(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	} else {
		t.Errorf("%T is not a TCP connection", conn)
	}
	_ = conn.Close()
}

func hijack(t *testing.T, w http.ResponseWriter) net.Conn {
	t.Helper()
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Errorf("%T cannot be hijacked", w)
		return nil
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return nil
	}
	return conn
}

// wantIdenticalRequests checks that n requests were made and that every
// retry sent the first one's bytes and stamp.
func wantIdenticalRequests(t *testing.T, reqs []recorded, n int) []recorded {
	t.Helper()
	if len(reqs) != n {
		t.Fatalf("%d requests, want %d", len(reqs), n)
	}
	for i, r := range reqs[1:] {
		if !bytes.Equal(r.Body, reqs[0].Body) {
			t.Errorf("retry %d body differs:\n%s\n%s", i+1, r.Body, reqs[0].Body)
		}
		if r.Header.Get(StampHeader) != reqs[0].Header.Get(StampHeader) {
			t.Errorf("retry %d stamp differs", i+1)
		}
	}
	return reqs
}
