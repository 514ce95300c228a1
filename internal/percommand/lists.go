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

type listEntry struct {
	once  sync.Once
	value any
	err   error
}

// NewLists is an empty cache, for one command.
func NewLists() *Lists { return &Lists{entries: map[string]*listEntry{}} }

// List returns the cached answer of key, fetching it once.
func List[T any](ctx context.Context, lc *Lists, key string, fetch func(context.Context) (T, error)) (T, error) {
	lc.mu.Lock()
	e, ok := lc.entries[key]
	if !ok {
		e = &listEntry{}
		lc.entries[key] = e
	}
	lc.mu.Unlock()
	e.once.Do(func() { e.value, e.err = fetch(ctx) })
	if e.err != nil {
		lc.Forget(key) // a failure is not cached: the next caller retries
		var zero T
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
