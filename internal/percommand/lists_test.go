package percommand

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestListFetchesOncePerKey(t *testing.T) {
	lc := NewLists()
	var calls atomic.Int32
	fetch := func(context.Context) ([]string, error) { calls.Add(1); return []string{"a"}, nil } //nolint:unparam // signature fixed by List
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := List(context.Background(), lc, "tags", fetch); err != nil || v[0] != "a" {
				t.Errorf("%v %v", v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("%d fetches for 20 concurrent readers, want 1", calls.Load())
	}
	lc.Forget("tags")
	_, _ = List(context.Background(), lc, "tags", fetch)
	if calls.Load() != 2 {
		t.Fatalf("after forget: %d fetches, want 2", calls.Load())
	}
}

func TestListDoesNotCacheFailures(t *testing.T) {
	lc := NewLists()
	fail := true
	fetch := func(context.Context) (int, error) {
		if fail {
			return 0, errors.New("503")
		}
		return 7, nil
	}
	if _, err := List(context.Background(), lc, "k", fetch); err == nil {
		t.Fatal("want the error")
	}
	fail = false
	if v, err := List(context.Background(), lc, "k", fetch); err != nil || v != 7 {
		t.Fatalf("after a failure the next call must fetch again: %v %v", v, err)
	}
}

// A shared first read that fails is not kept, a read in progress is
// waited for, and a waiter whose own context ends stops waiting.
func TestFirstSuccessFailuresNotKept(t *testing.T) {
	f := NewFirstSuccess[int]()
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = f.Get(context.Background(), func(context.Context) (int, error) { close(started); <-release; return 0, context.Canceled })
	}()
	<-started
	short, stop := context.WithCancel(t.Context())
	stop()
	if _, err := f.Get(short, func(context.Context) (int, error) { return 1, nil }); err == nil {
		t.Error("a waiter whose context ended should stop waiting")
	}
	close(release)
	if v, err := f.Get(t.Context(), func(context.Context) (int, error) { return 7, nil }); err != nil || v != 7 {
		t.Errorf("after the first read failed, the next reads: %v %v", v, err)
	}
	if v, ok := f.Loaded(); !ok || v != 7 {
		t.Errorf("the first success is kept: %v %v", v, ok)
	}
}

// TestListWaiterKeepsItsOwnDeadline: a fetch in progress (the command's
// first reads, started with no deadline) holds a caller only as long as
// the caller's context lets it; the fetch's answer then serves the next.
func TestListWaiterKeepsItsOwnDeadline(t *testing.T) {
	lc := NewLists()
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = List(context.Background(), lc, "k", func(context.Context) (int, error) { close(started); <-release; return 7, nil })
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := List(ctx, lc, "k", func(context.Context) (int, error) { return 0, errors.New("a second fetch") }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a waiter past its deadline: %v, want context.DeadlineExceeded", err)
	}
	close(release)
	if v, err := List(context.Background(), lc, "k", func(context.Context) (int, error) { return 0, errors.New("a second fetch") }); err != nil || v != 7 {
		t.Fatalf("after the fetch: %v, %v; want its 7", v, err)
	}
}

// TestAFailedPrefetchIsReadAgain: a caller waiting for a prefetch that
// fails reads again itself and gets its own answer, not the prefetch's
// error; a prefetch of a key already read fetches nothing.
func TestAFailedPrefetchIsReadAgain(t *testing.T) {
	lc := NewLists()
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = Prefetch(context.Background(), lc, "k", func(context.Context) (int, error) {
			close(started)
			<-release
			return 0, errors.New("503, not retried")
		})
	}()
	<-started
	got := make(chan error, 1)
	go func() {
		v, err := List(context.Background(), lc, "k", func(context.Context) (int, error) { return 7, nil })
		if err == nil && v != 7 {
			err = errors.New("not the caller's own answer")
		}
		got <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the caller find the prefetch in progress
	close(release)
	if err := <-got; err != nil {
		t.Fatalf("the caller behind a failed prefetch: %v; want its own read's 7", err)
	}
	if err := Prefetch(context.Background(), lc, "k", func(context.Context) (int, error) { return 0, errors.New("fetched again") }); err != nil {
		t.Fatalf("a prefetch of a key already read: %v", err)
	}
}
