package percommand

import (
	"context"
	"fmt"
	"sync"
)

// Lists shares one list query among the resources of one command, so
// that refreshing N tags or webhook endpoints costs one request, not N.
// A write drops the list it may have changed (Forget).
type Lists struct {
	mu      sync.Mutex
	entries map[string]*listEntry
}

// listEntry is one key's fetch: done is closed when it ends, with value
// or err set. ahead marks a fetch made ahead of need (Prefetch), whose
// failure its waiters do not take as theirs.
type listEntry struct {
	done  chan struct{}
	value any
	err   error
	ahead bool
}

// NewLists is an empty cache, for one command.
func NewLists() *Lists { return &Lists{entries: map[string]*listEntry{}} }

// List returns the cached answer of key, fetching it once. A caller that
// finds a fetch in progress waits for it as long as its own context lets
// it: the fetch may be another caller's with a longer patience, or a
// Prefetch with none of its own (sent when the provider is configured),
// and a caller with a deadline must keep it.
func List[T any](ctx context.Context, lc *Lists, key string, fetch func(context.Context) (T, error)) (T, error) {
	return list(ctx, lc, key, fetch, false)
}

// Prefetch is List made ahead of need, by no caller: a caller that finds
// it failed reads again itself, with its own context, rather than take
// its error (a prefetch is sent once, not retried: see
// client.SingleAttempt).
func Prefetch[T any](ctx context.Context, lc *Lists, key string, fetch func(context.Context) (T, error)) error {
	_, err := list(ctx, lc, key, fetch, true)
	return err
}

func list[T any](ctx context.Context, lc *Lists, key string, fetch func(context.Context) (T, error), ahead bool) (T, error) {
	var zero T
	lc.mu.Lock()
	e, ok := lc.entries[key]
	if !ok {
		e = &listEntry{done: make(chan struct{}), ahead: ahead}
		lc.entries[key] = e
	}
	lc.mu.Unlock()
	if ok && ahead {
		return zero, nil // read or being read already
	}
	if !ok {
		e.value, e.err = fetch(ctx)
		if e.err != nil {
			lc.forget(key, e) // a failure is not cached: the next caller retries
		}
		close(e.done)
	} else {
		select {
		case <-e.done:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		if e.err != nil && e.ahead {
			return list(ctx, lc, key, fetch, false)
		}
	}
	if e.err != nil {
		return zero, e.err
	}
	v, ok := e.value.(T)
	if !ok { // two callers used one key for different types
		panic(fmt.Sprintf("list cache: key %q holds %T, not %T", key, e.value, v))
	}
	return v, nil
}

// Forget drops a list after a write that may have changed it.
func (lc *Lists) Forget(key string) {
	lc.mu.Lock()
	delete(lc.entries, key)
	lc.mu.Unlock()
}

// forget drops e, if it is still key's entry (a Forget and a new fetch may
// have replaced it).
func (lc *Lists) forget(key string, e *listEntry) {
	lc.mu.Lock()
	if lc.entries[key] == e {
		delete(lc.entries, key)
	}
	lc.mu.Unlock()
}
