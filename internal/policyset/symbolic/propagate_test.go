package symbolic

import (
	"slices"
	"testing"
)

func TestPropagate(t *testing.T) {
	// (a ∨ b) ∧ (¬a ∨ c) ∧ (¬c ∨ d ∨ e) ∧ (b ∨ e), with a assumed: c follows,
	// and (¬c ∨ d ∨ e) is left as (d ∨ e); (a ∨ b) and (¬a ∨ c) are
	// satisfied; (b ∨ e) is untouched.
	cnf := [][]lit{{2, 3}, {-2, 4}, {-4, 5, 6}, {3, 6}}
	reduced, set, conflict := propagate(cnf, []lit{2}, 6)
	if conflict || !slices.Equal(set, []lit{2, 4}) {
		t.Fatalf("set %v, conflict %v; want [2 4], no conflict", set, conflict)
	}
	if want := [][]lit{{5, 6}, {3, 6}}; !slices.EqualFunc(reduced, want, slices.Equal) {
		t.Errorf("reduced %v, want %v", reduced, want)
	}
	// ¬d and ¬e as well: (d ∨ e) has no literal left.
	if _, _, conflict := propagate(cnf, []lit{2, -5, -6}, 6); !conflict {
		t.Error("a clause with every literal false is a conflict")
	}
	// A unit clause of the formula against an assumption.
	if _, _, conflict := propagate([][]lit{{-3}}, []lit{3}, 3); !conflict {
		t.Error("a unit clause against an assumption is a conflict")
	}
	// A chain: each propagated literal propagates the next.
	_, set, _ = propagate([][]lit{{-2, 3}, {-3, 4}, {-4, -5}}, []lit{2}, 5)
	if !slices.Equal(set, []lit{2, 3, 4, -5}) {
		t.Errorf("chain set %v, want [2 3 4 -5]", set)
	}
}
