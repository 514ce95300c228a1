package percommand

import (
	"context"
	"sync"
)

// FirstSuccess is a shared first read that is kept once it succeeds. A
// failure is not kept: it goes to the caller whose read failed (its
// context canceled, say), and the next caller reads again, as List does.
// Callers wait for a read in progress, each as long as its own context
// lets it. Its zero value is not ready: make one with NewFirstSuccess.
type FirstSuccess[T any] struct {
	turn chan struct{} // one slot: whoever holds it reads
	mu   sync.Mutex    // guards done and v, for Loaded
	done bool
	v    T
}

// NewFirstSuccess is a FirstSuccess that has read nothing yet.
func NewFirstSuccess[T any]() *FirstSuccess[T] {
	return &FirstSuccess[T]{turn: make(chan struct{}, 1)}
}

// Get returns the value read first, reading it with read if no read has
// succeeded yet.
func (f *FirstSuccess[T]) Get(ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	if v, ok := f.Loaded(); ok {
		return v, nil
	}
	select {
	case f.turn <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-f.turn }()
	if v, ok := f.Loaded(); ok {
		return v, nil
	}
	v, err := read(ctx)
	if err != nil {
		return v, err
	}
	f.mu.Lock()
	f.v, f.done = v, true
	f.mu.Unlock()
	return v, nil
}

// Loaded is the value, once a read has succeeded.
func (f *FirstSuccess[T]) Loaded() (T, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.v, f.done
}
