package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// testKey is a fixed key pair so that failures are reproducible.
var testKey = mustKey()

func mustKey() *APIKey {
	k, err := GenerateAPIKey()
	if err != nil {
		panic(err)
	}
	return k
}

// recorded is one request as the fake service saw it.
type recorded struct {
	Path   string
	Header http.Header
	Body   []byte
}

// fakeService records every request and answers with the handler.
type fakeService struct {
	mu       sync.Mutex
	requests []recorded
	answer   func(n int, r recorded, w http.ResponseWriter)
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	f.mu.Lock()
	f.requests = append(f.requests, rec)
	n := len(f.requests)
	f.mu.Unlock()
	f.answer(n, rec, w)
}

func (f *fakeService) all() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// sleeps records the waits a client asked for instead of sleeping.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newTestClient starts f on 127.0.0.1 and returns a client of it whose
// sleeps are recorded, not slept, and whose jitter is off.
func newTestClient(t *testing.T, f *fakeService, mutate ...func(*Config)) (*Client, *sleeps) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg := Config{
		BaseURL:        srv.URL,
		OrganizationID: "org-1",
		APIPublicKey:   testKey.PublicKeyHex(),
		APIPrivateKey:  testKey.PrivateKeyHex(),
		RetryWaitMin:   10 * time.Millisecond,
		RetryWaitMax:   80 * time.Millisecond,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s := &sleeps{}
	c.sleep = s.sleep
	c.jitter = func(d time.Duration) time.Duration { return d }
	return c, s
}

// writeJSON answers with a status and a JSON body.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
