package client

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const webhookTestProdCacheControl = "public, max-age=86400, s-maxage=86400, stale-if-error=604800"

// webhookTestClock is a settable clock for the cache and verifier.
type webhookTestClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *webhookTestClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *webhookTestClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

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

func newWebhookTestCache(s *webhookTestServer) (*WebhookKeyCache, *webhookTestClock) {
	clock := &webhookTestClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
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

func webhookWantFetches(t *testing.T, s *webhookTestServer, want int64) {
	t.Helper()
	if got := s.requests.Load(); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
}

func TestWebhookKeySetDecode(t *testing.T) {
	wire := `{"keys":[{"kid":"k1","kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig",
		"x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
		"service_signature_algorithm":"ed25519","service_signature_version":"v1"}]}`
	var set WebhookKeySet
	if err := json.Unmarshal([]byte(wire), &set); err != nil {
		t.Fatal(err)
	}
	want := WebhookKeySet{Keys: []WebhookKey{{
		Kid: "k1", Kty: "OKP", Crv: "Ed25519", Alg: "EdDSA", Use: "sig",
		X:                         "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
		ServiceSignatureAlgorithm: "ed25519", ServiceSignatureVersion: "v1",
	}}}
	if !reflect.DeepEqual(set, want) {
		t.Fatalf("decoded %+v, want %+v", set, want)
	}
	pub, err := set.Keys[0].PublicKey()
	if err != nil || len(pub) != ed25519.PublicKeySize {
		t.Fatalf("PublicKey() = %x, %v", pub, err)
	}
}

func TestWebhookKeyPublicKey(t *testing.T) {
	good, priv := newWebhookTestKey(t, "k1")
	pub, ok := priv.Public().(ed25519.PublicKey)
	if !ok {
		t.Fatalf("public key is %T", priv.Public())
	}
	tests := []struct {
		name    string
		mutate  func(k *WebhookKey)
		wantErr string // empty: valid
	}{
		{"valid", func(k *WebhookKey) {}, ""},
		{"empty kid", func(k *WebhookKey) { k.Kid = "" }, "kid is empty"},
		{"wrong kty", func(k *WebhookKey) { k.Kty = "EC" }, `kty is "EC"`},
		{"wrong crv", func(k *WebhookKey) { k.Crv = "X25519" }, `crv is "X25519"`},
		{"wrong alg", func(k *WebhookKey) { k.Alg = "ES256" }, `alg is "ES256"`},
		{"wrong use", func(k *WebhookKey) { k.Use = "enc" }, `use is "enc"`},
		{"wrong service algorithm", func(k *WebhookKey) { k.ServiceSignatureAlgorithm = "p256" }, "service_signature_algorithm"},
		{"wrong service version", func(k *WebhookKey) { k.ServiceSignatureVersion = "v2" }, "service_signature_version"},
		{"x padded", func(k *WebhookKey) { k.X += "=" }, "base64url"},
		{"x std alphabet", func(k *WebhookKey) { k.X = "+/" + k.X[2:] }, "base64url"},
		{"x too short", func(k *WebhookKey) { k.X = base64.RawURLEncoding.EncodeToString(pub[:31]) }, "31 bytes"},
		{"x empty", func(k *WebhookKey) { k.X = "" }, "0 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := good
			tt.mutate(&k)
			got, err := k.PublicKey()
			if tt.wantErr == "" {
				if err != nil || !got.Equal(pub) {
					t.Fatalf("PublicKey() = %x, %v; want %x", got, err, pub)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("PublicKey() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestWebhookParseCacheControl(t *testing.T) {
	const s = time.Second
	tests := []struct {
		in   string
		want webhookCacheControl
	}{
		{"", webhookCacheControl{}},
		{webhookTestProdCacheControl, webhookCacheControl{maxAge: 86400 * s, hasMaxAge: true, staleIfError: 604800 * s}},
		{"MAX-AGE=60, Stale-If-Error=30", webhookCacheControl{maxAge: 60 * s, hasMaxAge: true, staleIfError: 30 * s}},
		{`max-age="45"`, webhookCacheControl{maxAge: 45 * s, hasMaxAge: true}},
		{"max-age=0", webhookCacheControl{hasMaxAge: true}},
		{"max-age=10, max-age=5", webhookCacheControl{maxAge: 5 * s, hasMaxAge: true}},
		{"max-age=5, max-age=10, stale-if-error=9, stale-if-error=99", webhookCacheControl{maxAge: 5 * s, hasMaxAge: true, staleIfError: 9 * s}},
		{"max-age=99999999999999999999", webhookCacheControl{maxAge: webhookMaxDeltaSeconds * s, hasMaxAge: true}},
		{"max-age=abc", webhookCacheControl{}},
		{"max-age=-1", webhookCacheControl{}},
		{"max-age=+5", webhookCacheControl{}},
		{"max-age", webhookCacheControl{}},
		{"s-maxage=60", webhookCacheControl{}},
		{"no-store", webhookCacheControl{noStore: true}},
		{"No-Cache, max-age=60", webhookCacheControl{maxAge: 60 * s, hasMaxAge: true, noCache: true}},
		{`no-cache="Set-Cookie"`, webhookCacheControl{noCache: true}},
		{" private ,  max-age=7 ,,", webhookCacheControl{maxAge: 7 * s, hasMaxAge: true}},
		{"stale-if-error=600", webhookCacheControl{staleIfError: 600 * s}},
	}
	for _, tt := range tests {
		if got := webhookParseCacheControl(tt.in); got != tt.want {
			t.Errorf("webhookParseCacheControl(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestWebhookNewKeyCacheDefaultClient(t *testing.T) {
	if c := NewWebhookKeyCache(nil, "http://127.0.0.1/x"); c.httpClient != http.DefaultClient {
		t.Fatalf("nil client gave %v, want http.DefaultClient", c.httpClient)
	}
}

func TestWebhookKeyCacheCaching(t *testing.T) {
	tests := []struct {
		name         string
		cacheControl string
		age          string
		stillFresh   time.Duration // clock advance after which the set is reused
		expired      time.Duration // further advance after which it is refetched
	}{
		{"production header", webhookTestProdCacheControl, "", 86399 * time.Second, time.Second},
		{"short max-age", "max-age=60", "", 59 * time.Second, time.Second},
		{"Age shortens lifetime", "max-age=100", "90", 9 * time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k1, _ := newWebhookTestKey(t, "k1")
			srv := newWebhookTestServer(t, tt.cacheControl, k1)
			srv.set(func(s *webhookTestServer) { s.age = tt.age })
			cache, clock := newWebhookTestCache(srv)
			ctx := context.Background()
			for range 2 {
				if _, err := cache.Key(ctx, "k1"); err != nil {
					t.Fatal(err)
				}
			}
			webhookWantFetches(t, srv, 1)
			clock.Advance(tt.stillFresh)
			if set, err := cache.KeySet(ctx); err != nil || len(set.Keys) != 1 {
				t.Fatalf("KeySet() = %v, %v", set, err)
			}
			webhookWantFetches(t, srv, 1)
			clock.Advance(tt.expired)
			if _, err := cache.Key(ctx, "k1"); err != nil {
				t.Fatal(err)
			}
			webhookWantFetches(t, srv, 2)
		})
	}
}

func TestWebhookKeyCacheUnknownKid(t *testing.T) {
	ctx := context.Background()
	k1, _ := newWebhookTestKey(t, "k1")
	k2, priv2 := newWebhookTestKey(t, "k2")

	t.Run("rotated in while cache fresh", func(t *testing.T) {
		srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
		cache, _ := newWebhookTestCache(srv)
		if _, err := cache.Key(ctx, "k1"); err != nil {
			t.Fatal(err)
		}
		srv.set(func(s *webhookTestServer) { s.keys = []WebhookKey{k1, k2} })
		got, err := cache.Key(ctx, "k2")
		if err != nil || !got.Equal(priv2.Public()) {
			t.Fatalf("Key(k2) = %x, %v", got, err)
		}
		webhookWantFetches(t, srv, 2)
		if _, err := cache.Key(ctx, "k2"); err != nil { // the refetched set is cached
			t.Fatal(err)
		}
		webhookWantFetches(t, srv, 2)
	})
	t.Run("still unknown after refetch", func(t *testing.T) {
		srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
		cache, _ := newWebhookTestCache(srv)
		if _, err := cache.Key(ctx, "k1"); err != nil {
			t.Fatal(err)
		}
		_, err := cache.Key(ctx, "nope")
		if !errors.Is(err, ErrWebhookUnknownKey) || !strings.Contains(err.Error(), `"nope"`) {
			t.Fatalf("Key(nope) error = %v, want ErrWebhookUnknownKey naming the kid", err)
		}
		webhookWantFetches(t, srv, 2)
	})
	t.Run("cold cache fetches once", func(t *testing.T) {
		srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
		cache, _ := newWebhookTestCache(srv)
		if _, err := cache.Key(ctx, "nope"); !errors.Is(err, ErrWebhookUnknownKey) {
			t.Fatalf("Key(nope) error = %v, want ErrWebhookUnknownKey", err)
		}
		webhookWantFetches(t, srv, 1)
	})
	t.Run("refetch fails", func(t *testing.T) {
		srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
		cache, _ := newWebhookTestCache(srv)
		if _, err := cache.Key(ctx, "k1"); err != nil {
			t.Fatal(err)
		}
		srv.set(func(s *webhookTestServer) { s.failStatus = http.StatusServiceUnavailable })
		_, err := cache.Key(ctx, "k2")
		// Not proven unknown: the caller should retry, not reject for good.
		if err == nil || errors.Is(err, ErrWebhookUnknownKey) || !strings.Contains(err.Error(), "503") {
			t.Fatalf("Key(k2) error = %v, want a fetch error that is not ErrWebhookUnknownKey", err)
		}
		if _, err := cache.Key(ctx, "k1"); err != nil { // a failed refetch keeps the cached set
			t.Fatal(err)
		}
		webhookWantFetches(t, srv, 2)
	})
}

func TestWebhookKeyCacheStaleIfError(t *testing.T) {
	const cc = "max-age=60, stale-if-error=300"
	failures := []struct {
		name    string
		fail    func(s *webhookTestServer)
		wantErr string
	}{
		{"503", func(s *webhookTestServer) {
			s.failStatus, s.failBody = 503, `{"code":14,"message":"keys unavailable","details":[]}`
		}, "keys unavailable"},
		{"network error", func(s *webhookTestServer) { s.hangup = true }, "EOF"},
		{"bad body", func(s *webhookTestServer) { s.rawBody = `{"keys":[` }, "decoding body"},
		{"no keys", func(s *webhookTestServer) { s.rawBody = `{"keys":[]}` }, "no keys"},
	}
	ctx := context.Background()
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			k1, _ := newWebhookTestKey(t, "k1")
			srv := newWebhookTestServer(t, cc, k1)
			cache, clock := newWebhookTestCache(srv)
			if _, err := cache.Key(ctx, "k1"); err != nil {
				t.Fatal(err)
			}
			srv.set(f.fail)
			clock.Advance(61 * time.Second) // expired, inside stale-if-error
			if _, err := cache.Key(ctx, "k1"); err != nil {
				t.Fatalf("stale set not used: %v", err)
			}
			if set, err := cache.KeySet(ctx); err != nil || len(set.Keys) != 1 {
				t.Fatalf("KeySet() = %v, %v", set, err)
			}
			webhookWantFetches(t, srv, 3)
			// A stale set cannot prove a kid unknown; one fetch per call still.
			if _, err := cache.Key(ctx, "k2"); err == nil || errors.Is(err, ErrWebhookUnknownKey) {
				t.Fatalf("Key(k2) error = %v, want a fetch error", err)
			}
			webhookWantFetches(t, srv, 4)
			clock.Advance(300 * time.Second) // past expiry + stale-if-error
			_, err := cache.Key(ctx, "k1")
			if err == nil || !strings.Contains(err.Error(), f.wantErr) || !strings.Contains(err.Error(), srv.URL) {
				t.Fatalf("Key(k1) error = %v, want one naming %s and %q", err, srv.URL, f.wantErr)
			}
		})
	}
}

func TestWebhookKeyCacheNoReuse(t *testing.T) {
	ctx := context.Background()
	for _, cc := range []string{"no-store", "no-cache, max-age=60", "", "public, stale-if-error=600", "max-age=60, no-store, stale-if-error=600"} {
		t.Run(cc, func(t *testing.T) {
			k1, _ := newWebhookTestKey(t, "k1")
			srv := newWebhookTestServer(t, cc, k1)
			cache, _ := newWebhookTestCache(srv)
			for range 3 {
				if _, err := cache.Key(ctx, "k1"); err != nil {
					t.Fatal(err)
				}
			}
			webhookWantFetches(t, srv, 3)
			srv.set(func(s *webhookTestServer) { s.failStatus = 503 })
			if _, err := cache.Key(ctx, "k1"); err == nil {
				t.Fatal("a set we may not store served a failed fetch")
			}
		})
	}
	t.Run("no-store answer drops cached set", func(t *testing.T) {
		k1, _ := newWebhookTestKey(t, "k1")
		srv := newWebhookTestServer(t, "max-age=60, stale-if-error=600", k1)
		cache, clock := newWebhookTestCache(srv)
		if _, err := cache.Key(ctx, "k1"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(61 * time.Second)
		srv.set(func(s *webhookTestServer) { s.cacheControl = "no-store" })
		if _, err := cache.Key(ctx, "k1"); err != nil {
			t.Fatal(err)
		}
		srv.set(func(s *webhookTestServer) { s.failStatus = 503 })
		if _, err := cache.Key(ctx, "k1"); err == nil {
			t.Fatal("the set cached before a no-store answer was still served")
		}
	})
}

func TestWebhookKeyCacheFetchErrors(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       []string
	}{
		{"json status", `{"code":7,"message":"forbidden by policy","details":[]}`, 403, []string{"403 Forbidden", ": forbidden by policy"}},
		{"not json", "<html>bad gateway</html>", 502, []string{"502 Bad Gateway"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newWebhookTestServer(t, "")
			srv.set(func(s *webhookTestServer) { s.failStatus, s.failBody = tt.status, tt.body })
			cache, _ := newWebhookTestCache(srv)
			_, err := cache.KeySet(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tt.want, srv.URL+WebhookKeySetPath) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "<html>") {
				t.Errorf("error %q quotes a non-JSON body", err)
			}
		})
	}
}

func TestWebhookKeyCacheConcurrent(t *testing.T) {
	k1, _ := newWebhookTestKey(t, "k1")
	srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
	cache, _ := newWebhookTestCache(srv)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = cache.Key(context.Background(), "k1")
			} else {
				_, err = cache.KeySet(context.Background())
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	webhookWantFetches(t, srv, 1) // no stampede: later callers found the fresh set
}

func TestWebhookKeyCacheWaiterHonoursContext(t *testing.T) {
	k1, _ := newWebhookTestKey(t, "k1")
	srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
	block, arrived := make(chan struct{}), make(chan struct{}, 1)
	srv.set(func(s *webhookTestServer) { s.block, s.arrived = block, arrived })
	cache, _ := newWebhookTestCache(srv)
	first := make(chan error, 1)
	go func() {
		_, err := cache.Key(context.Background(), "k1")
		first <- err
	}()
	<-arrived // the first call holds the lock, its fetch in flight
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	second := make(chan error, 1)
	go func() {
		_, err := cache.Key(ctx, "k1")
		second <- err
	}()
	select {
	case err := <-second:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waiting Key() error = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("waiting Key() ignored its context")
	}
	close(block)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

func TestWebhookKeySetReturnsCopy(t *testing.T) {
	k1, _ := newWebhookTestKey(t, "k1")
	srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
	cache, _ := newWebhookTestCache(srv)
	set, err := cache.KeySet(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	set.Keys[0].X = "tampered"
	if _, err := cache.Key(context.Background(), "k1"); err != nil {
		t.Fatalf("changing KeySet's result changed the cache: %v", err)
	}
}
