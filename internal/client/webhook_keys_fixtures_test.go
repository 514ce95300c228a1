package client

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

const webhookTestProdCacheControl = "public, max-age=86400, s-maxage=86400, stale-if-error=604800"

// webhookTestServer serves a key set it can change, and counts requests.
type webhookTestServer struct {
	*httptest.Server
	requests atomic.Int64

	mu           sync.Mutex
	keys         []WebhookKey
	cacheControl string
	age          string
	failStatus   int    // non-zero: answer this status with failBody
	failBody     string //
	hangup       bool   // close the connection without answering
	rawBody      string // non-empty: answer 200 with this instead of keys
	block        chan struct{}
	arrived      chan struct{}
}

func newWebhookTestServer(t *testing.T, cacheControl string, keys ...WebhookKey) *webhookTestServer {
	t.Helper()
	s := &webhookTestServer{keys: keys, cacheControl: cacheControl}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve)) // listens on 127.0.0.1
	t.Cleanup(s.Close)
	return s
}

func (s *webhookTestServer) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	keys, cc, age, failStatus, failBody, hangup, rawBody, block, arrived :=
		s.keys, s.cacheControl, s.age, s.failStatus, s.failBody, s.hangup, s.rawBody, s.block, s.arrived
	s.mu.Unlock()
	if arrived != nil {
		arrived <- struct{}{}
	}
	if block != nil {
		<-block
	}
	switch {
	case r.Method != http.MethodGet || r.URL.Path != WebhookKeySetPath || r.Header.Get("Authorization") != "":
		http.Error(w, "unexpected request", http.StatusBadRequest)
	case hangup:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(fmt.Sprintf("%T cannot be hijacked", w))
		}
		conn, _, _ := hj.Hijack()
		_ = conn.Close()
	case failStatus != 0:
		w.WriteHeader(failStatus)
		_, _ = w.Write([]byte(failBody))
	default:
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		if age != "" {
			w.Header().Set("Age", age)
		}
		w.Header().Set("Content-Type", "application/json")
		if rawBody != "" {
			_, _ = w.Write([]byte(rawBody))
			return
		}
		_ = json.NewEncoder(w).Encode(WebhookKeySet{Keys: keys})
	}
}

func (s *webhookTestServer) set(f func(s *webhookTestServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func newWebhookTestKey(t *testing.T, kid string) (WebhookKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return WebhookKey{
		Kid: kid, Kty: "OKP", Crv: "Ed25519", Alg: "EdDSA", Use: "sig",
		X:                         base64.RawURLEncoding.EncodeToString(pub),
		ServiceSignatureAlgorithm: "ed25519", ServiceSignatureVersion: "v1",
	}, priv
}

func newWebhookTestCache(s *webhookTestServer) (*WebhookKeyCache, *testclock.Clock) {
	clock := testclock.New(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	// No keep-alives: a request that fails on a reused connection is
	// retried by net/http, which would double-count fetches.
	base, ok := s.Client().Transport.(*http.Transport)
	if !ok {
		panic(fmt.Sprintf("httptest client transport is %T, not *http.Transport", s.Client().Transport))
	}
	tr := base.Clone()
	tr.DisableKeepAlives = true
	c := NewWebhookKeyCache(&http.Client{Transport: tr}, s.URL+WebhookKeySetPath)
	c.now = clock.Now
	return c, clock
}

// newWarmWebhookCache is a cache of srv that has fetched the set once, for
// a Key("k1"), as after a first delivery: where the tests of refetching
// and of stale sets start.
func newWarmWebhookCache(t *testing.T, srv *webhookTestServer) (*WebhookKeyCache, *testclock.Clock) {
	t.Helper()
	cache, clock := newWebhookTestCache(srv)
	if _, err := cache.Key(t.Context(), "k1"); err != nil {
		t.Fatal(err)
	}
	return cache, clock
}

func webhookWantFetches(t *testing.T, s *webhookTestServer, want int64) {
	t.Helper()
	if got := s.requests.Load(); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
}
