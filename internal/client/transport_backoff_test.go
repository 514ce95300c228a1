package client

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

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
		wantGaveUp(t, err, "(gave up after 2 attempts: the next retry, in 1m0s, would pass the deadline (the service's Retry-After "+
			"asked for 2m0s, and the last wait was cut to 1m0s, the most the client waits))", 2, f)
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

func wantGaveUp(t *testing.T, err error, text string, attempts int, f *fakeService) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("error = %v, want it to say %q", err, text)
	}
	if n := len(f.all()); n != attempts {
		t.Errorf("%d requests, want %d", n, attempts)
	}
}

// A Retry-After past MaxRetryAfter is waited for MaxRetryAfter only, and
// the error after the last attempt says the wait was cut short.
func TestRetryAfterIsCapped(t *testing.T) {
	for _, retryAfter := range []string{"100000", time.Now().Add(240 * time.Hour).UTC().Format(http.TimeFormat)} {
		f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
			w.Header().Set("Retry-After", retryAfter)
			writeJSON(w, 429, `{"code":8,"message":"rate limited","details":[]}`)
		}}
		c, s := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(2) })
		_, err := c.Whoami(t.Context(), WhoamiRequest{})
		if w := s.all(); len(w) != 2 || w[0] != MaxRetryAfter || w[1] != MaxRetryAfter {
			t.Errorf("Retry-After %s: waits = %v, want 2 × %v", retryAfter, w, MaxRetryAfter)
		}
		if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts: the service's Retry-After asked for") ||
			!strings.Contains(err.Error(), "the last wait was cut to 1m0s") {
			t.Errorf("Retry-After %s: error = %v", retryAfter, err)
		}
	}
}

// A body that is not the service's error shape is kept as the message, cut
// at 512 bytes on a character boundary: never invalid UTF-8.
func TestLongRawErrorBodyIsCutOnACharacterBoundary(t *testing.T) {
	body := "a" + strings.Repeat("é", 400) // byte 512 falls inside an é
	e := decodeAPIError("whoami", 502, http.Header{}, []byte(body))
	if !utf8.ValidString(e.Message) || !strings.HasSuffix(e.Message, "é…") || len(e.Message) > 512+len("…") {
		t.Errorf("message of %d bytes, valid UTF-8 %v, ends %q", len(e.Message), utf8.ValidString(e.Message), e.Message[len(e.Message)-8:])
	}
	if e := decodeAPIError("whoami", 502, http.Header{}, []byte("bad \xff byte")); !utf8.ValidString(e.Message) {
		t.Errorf("a body with invalid UTF-8 gave the message %q", e.Message)
	}
	// JSON of another shape is kept as it is, cut at 512 bytes: on a
	// character boundary too.
	jsonBody := `"` + strings.Repeat("é", 400) + `"` // byte 512 falls inside an é
	if e := decodeAPIError("whoami", 502, http.Header{}, []byte(jsonBody)); !utf8.ValidString(e.Message) ||
		!strings.HasSuffix(e.Message, "é…") || len(e.Message) > 512+len("…") || len(e.Message) < 500 {
		t.Errorf("a long JSON body gave a message of %d bytes, valid UTF-8 %v", len(e.Message), utf8.ValidString(e.Message))
	}
}
