package policyset

import "testing"

// TestMemoKeepsAtMostItsBound: a value is computed once per key while
// there is room, and every time past the bound, with the same answer.
func TestMemoKeepsAtMostItsBound(t *testing.T) {
	m := NewMemo[int, int](2)
	calls := 0
	square := func(k int) func() int { return func() int { calls++; return k * k } }
	for range 3 {
		for k := range 3 {
			if got := m.Get(k, square(k)); got != k*k {
				t.Fatalf("Get(%d) = %d, want %d", k, got, k*k)
			}
		}
	}
	if len(m.m) != 2 || calls != 2+3 {
		t.Fatalf("%d keys kept and %d computations; want the bound's 2 kept, and the third key computed each of 3 times", len(m.m), calls)
	}
}
