package provider

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestCachedListFetchesOncePerKey(t *testing.T) {
	lc := newListCache()
	var calls atomic.Int32
	fetch := func(context.Context) ([]string, error) { calls.Add(1); return []string{"a"}, nil } //nolint:unparam // signature fixed by cachedList
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := cachedList(context.Background(), lc, "tags", fetch); err != nil || v[0] != "a" {
				t.Errorf("%v %v", v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("%d fetches for 20 concurrent readers, want 1", calls.Load())
	}
	lc.forget("tags")
	_, _ = cachedList(context.Background(), lc, "tags", fetch)
	if calls.Load() != 2 {
		t.Fatalf("after forget: %d fetches, want 2", calls.Load())
	}
}

func TestCachedListDoesNotCacheFailures(t *testing.T) {
	lc := newListCache()
	fail := true
	fetch := func(context.Context) (int, error) {
		if fail {
			return 0, errors.New("503")
		}
		return 7, nil
	}
	if _, err := cachedList(context.Background(), lc, "k", fetch); err == nil {
		t.Fatal("want the error")
	}
	fail = false
	if v, err := cachedList(context.Background(), lc, "k", fetch); err != nil || v != 7 {
		t.Fatalf("after a failure the next call must fetch again: %v %v", v, err)
	}
}
