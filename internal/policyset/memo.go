package policyset

import "sync"

// Memo keeps the values of a pure function by key, for every caller in
// the process: the compiled expressions, the read policies and what the
// access review derives from them are asked for again and again with the
// same text. It holds at most max keys; past that (a fuzzer, a function
// called with ever new text) values are computed each time instead of
// growing the memo without end. Safe for concurrent use.
type Memo[K comparable, V any] struct {
	mu  sync.RWMutex
	m   map[K]V
	max int
}

// NewMemo is an empty memo of at most max keys.
func NewMemo[K comparable, V any](max int) *Memo[K, V] {
	return &Memo[K, V]{m: map[K]V{}, max: max}
}

// Get is the value kept for k, or compute's, kept if there is room.
// Two callers may compute the same key at once; both get a value equal
// to the one kept, since compute is pure.
func (c *Memo[K, V]) Get(k K, compute func() V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	if len(c.m) < c.max {
		c.m[k] = v
	}
	c.mu.Unlock()
	return v
}
