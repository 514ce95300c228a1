package provider

import (
	"context"
	"testing"
)

// newGuard is the guard of one command of the terraform user.
func (w *guardWorld) newGuard(t testing.TB, skip bool) *lockoutGuard {
	t.Helper()
	return newLockoutGuard(newProviderData(accClient(t, w.e.url, w.key), 0), skip)
}

// A shared first read that fails is not kept: the caller whose context
// was canceled gets its error, and the next caller reads again.
func TestLockoutGuardFailuresNotKept(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	g := w.newGuard(t, false)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := g.baseline(canceled); err == nil {
		t.Fatal("a canceled caller should get its error")
	}
	if b, err := g.baseline(t.Context()); err != nil || b == nil {
		t.Fatalf("the next caller should read again, not get the first one's failure: %v", err)
	}
	if q := g.rootQuorum(canceled); q != nil {
		t.Fatal("a canceled caller cannot read the quorum")
	}
	if q := g.rootQuorum(t.Context()); q == nil || q.Threshold != 1 {
		t.Fatalf("the next caller should read the quorum again: %+v", q)
	}
	// A read in progress is waited for, and a waiter whose own context
	// ends stops waiting.
	f := newFirstSuccess[int]()
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = f.get(context.Background(), func(context.Context) (int, error) { close(started); <-release; return 0, context.Canceled })
	}()
	<-started
	short, stop := context.WithCancel(t.Context())
	stop()
	if _, err := f.get(short, func(context.Context) (int, error) { return 1, nil }); err == nil {
		t.Error("a waiter whose context ended should stop waiting")
	}
	close(release)
	if v, err := f.get(t.Context(), func(context.Context) (int, error) { return 7, nil }); err != nil || v != 7 {
		t.Errorf("after the first read failed, the next reads: %v %v", v, err)
	}
}
