package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

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
		cache, _ := newWarmWebhookCache(t, srv)
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
		cache, _ := newWarmWebhookCache(t, srv)
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
		cache, _ := newWarmWebhookCache(t, srv)
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
			cache, clock := newWarmWebhookCache(t, srv)
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
