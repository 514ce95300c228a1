package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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

// Any 5xx is retried, submits like queries: a 500 may come after the
// service committed, and the identical resubmission is then answered with
// the same activity.
func TestRetryEvery5xx(t *testing.T) {
	calls := map[string]func(*Client) error{
		"submit": func(c *Client) error { _, err := c.CreatePolicies(t.Context(), onePolicy); return err },
		"query":  func(c *Client) error { _, err := c.Whoami(t.Context(), WhoamiRequest{}); return err },
	}
	for _, status := range []int{500, 501, 502, 503, 504, 599} {
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

func TestRetryGivesUpAfterMaxRetries(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 503, `{"code":14,"message":"down","details":[]}`)
	}}
	c, s := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(3) })
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

func TestNoRetriesSendsEachRequestOnce(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 502, `{}`) }}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = NoRetries })
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

func TestFullJitterSpansZeroToTheCap(t *testing.T) {
	var low, high bool
	for range 2000 {
		d := fullJitter(time.Second)
		if d < 0 || d > time.Second {
			t.Fatalf("fullJitter(1s) = %v, outside [0, 1s]", d)
		}
		low = low || d < 100*time.Millisecond
		high = high || d > 900*time.Millisecond
	}
	if !low || !high {
		t.Errorf("2000 draws never fell below 100ms (%v) or above 900ms (%v): not spread over [0, 1s]", low, high)
	}
	if d := fullJitter(0); d != 0 {
		t.Errorf("fullJitter(0) = %v", d)
	}
}

func TestBackoffIsCapped(t *testing.T) {
	for attempt, want := range []time.Duration{10, 20, 40, 80, 80, 80} {
		if got := backoff(10, 80, attempt); got != want {
			t.Errorf("backoff(10, 80, %d) = %v, want %v", attempt, got, want)
		}
	}
	if got := backoff(time.Second, math.MaxInt64, 200); got != math.MaxInt64 {
		t.Errorf("backoff at attempt 200 = %v, want the cap (no overflow)", got)
	}
	if got := backoff(time.Second, 20*time.Second, 1000); got != 20*time.Second {
		t.Errorf("backoff at attempt 1000 = %v, want 20s", got)
	}
}

// The client jitters the capped backoff and sleeps what the jitter chose;
// a Retry-After is slept as the service asked, without jitter.
func TestRetryWaitsAreJitteredBackoffOrRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", now.Add(3*time.Second).Format(http.TimeFormat))
			writeJSON(w, 429, `{"code":8,"message":"slow down","details":[]}`)
		case 9:
			writeJSON(w, 200, completedPolicies)
		default:
			writeJSON(w, 500, `{"code":13,"message":"internal","details":[]}`)
		}
	}}
	c, s := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(8) })
	c.now = func() time.Time { return now }
	var capped []time.Duration
	c.jitter = func(d time.Duration) time.Duration {
		capped = append(capped, d)
		return d / 4
	}
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	if want := []time.Duration{20 * ms, 40 * ms, 80 * ms, 80 * ms, 80 * ms, 80 * ms, 80 * ms}; !slices.Equal(capped, want) {
		t.Errorf("backoff handed to the jitter = %v, want %v (retryMin·2^n, capped at retryMax)", capped, want)
	}
	want := []time.Duration{3 * time.Second, 5 * ms, 10 * ms, 20 * ms, 20 * ms, 20 * ms, 20 * ms, 20 * ms}
	if got := s.all(); !slices.Equal(got, want) {
		t.Errorf("waits = %v, want %v (Retry-After as sent, then the jitter's picks)", got, want)
	}
}

// Every way of running out says how many attempts were made, and keeps
// the last failure (and the context's error) for errors.Is/As.
func TestGaveUpSaysHowManyAttempts(t *testing.T) {
	unavailable := func(w http.ResponseWriter) { writeJSON(w, 503, `{"code":14,"message":"down","details":[]}`) }
	t.Run("retries exhausted on a status", func(t *testing.T) {
		f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { unavailable(w) }}
		c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(2) })
		_, err := c.Whoami(t.Context(), WhoamiRequest{})
		wantGaveUp(t, err, "down (gave up after 3 attempts)", 3, f)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 {
			t.Errorf("error %v does not hold the 503", err)
		}
	})
	t.Run("retries exhausted on dropped connections", func(t *testing.T) {
		f := &fakeService{}
		f.answer = func(_ int, _ recorded, w http.ResponseWriter) { hangUp(t, w) }
		c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(2) })
		_, err := c.Whoami(t.Context(), WhoamiRequest{})
		wantGaveUp(t, err, "(gave up after 3 attempts)", 3, f)
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("error %v does not hold the EOF", err)
		}
	})
	t.Run("retries off", func(t *testing.T) {
		f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { unavailable(w) }}
		c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = NoRetries })
		_, err := c.Whoami(t.Context(), WhoamiRequest{})
		wantGaveUp(t, err, "(gave up after 1 attempt)", 1, f)
	})
	t.Run("the next retry would pass the deadline", func(t *testing.T) {
		f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
			if n == 2 {
				w.Header().Set("Retry-After", "120")
			}
			unavailable(w)
		}}
		c, _ := newTestClient(t, f)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		_, err := c.Whoami(ctx, WhoamiRequest{})
		wantGaveUp(t, err, "(gave up after 2 attempts: the next retry, in 2m0s, would pass the deadline)", 2, f)
	})
	t.Run("context ended during an attempt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		f := &fakeService{answer: func(n int, r recorded, w http.ResponseWriter) {
			if n == 1 {
				unavailable(w)
				return
			}
			cancel()
			time.Sleep(50 * time.Millisecond) // the client stops waiting for this answer
			unavailable(w)
		}}
		c, _ := newTestClient(t, f)
		_, err := c.Whoami(ctx, WhoamiRequest{})
		wantGaveUp(t, err, "down (gave up after 2 attempts: the last was cut short: context canceled)", 2, f)
		var apiErr *APIError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &apiErr) {
			t.Errorf("error %v must hold both context.Canceled and the earlier 503", err)
		}
	})
	t.Run("context ended while waiting to retry", func(t *testing.T) {
		f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { unavailable(w) }}
		c, _ := newTestClient(t, f)
		c.sleep = func(context.Context, time.Duration) error { return context.Canceled }
		_, err := c.Whoami(t.Context(), WhoamiRequest{})
		wantGaveUp(t, err, "(gave up after 1 attempt: context canceled while waiting to retry)", 1, f)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v does not hold context.Canceled", err)
		}
	})
}

// Each retry is logged with why, which attempt failed and how long the
// client waits; never with the body or the stamp.
func TestRetryLogNamesTheReasonAndNoSecrets(t *testing.T) {
	f := &fakeService{}
	f.answer = func(n int, _ recorded, w http.ResponseWriter) {
		switch n {
		case 1:
			writeJSON(w, 500, `{"code":13,"message":"internal","details":[]}`)
		case 2:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{"code":8,"message":"slow down","details":[]}`)
		case 3:
			hangUp(t, w)
		default:
			writeJSON(w, 200, completedPolicies)
		}
	}
	logs := &logRecorder{}
	c, _ := newTestClient(t, f, logs.config)
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
		t.Fatal(err)
	}
	reqs := wantIdenticalRequests(t, f.all(), 4)
	retries := logs.retries()
	want := []struct {
		reason, wait string
		attempt      int
	}{{"HTTP 500", "10ms", 1}, {"HTTP 429", "1s", 2}, {"connection dropped (EOF)", "40ms", 3}}
	if len(retries) != len(want) {
		t.Fatalf("%d retries logged, want %d: %v", len(retries), len(want), retries)
	}
	for i, w := range want {
		r := retries[i]
		if r["reason"] != w.reason || r["wait"] != w.wait || r["attempt"] != w.attempt || r["operation"] != "create_policies" {
			t.Errorf("retry %d logged %v, want reason %q, wait %s, attempt %d", i+1, r, w.reason, w.wait, w.attempt)
		}
	}
	secrets := []string{string(reqs[0].Body), reqs[0].Header.Get(StampHeader), testKey.PrivateKeyHex(), `"policyName"`}
	for _, r := range retries {
		text := fmt.Sprint(r)
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("a retry log carries %.40q: %s", secret, text)
			}
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

func wantGaveUp(t *testing.T, err error, text string, attempts int, f *fakeService) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("error = %v, want it to say %q", err, text)
	}
	if n := len(f.all()); n != attempts {
		t.Errorf("%d requests, want %d", n, attempts)
	}
}

// logRecorder is a Config.Log that keeps what it is given.
type logRecorder struct {
	mu      sync.Mutex
	entries []map[string]any
}

func (l *logRecorder) config(cfg *Config) {
	cfg.Log = func(_ context.Context, msg string, fields ...map[string]any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		e := map[string]any{"msg": msg}
		for _, f := range fields {
			for k, v := range f {
				e[k] = v
			}
		}
		l.entries = append(l.entries, e)
	}
}

func (l *logRecorder) retries() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, e := range l.entries {
		if e["msg"] == "retrying request" {
			out = append(out, e)
		}
	}
	return out
}

func (l *logRecorder) reasons() []string {
	var out []string
	for _, e := range l.retries() {
		r, _ := e["reason"].(string)
		out = append(out, r)
	}
	return out
}
