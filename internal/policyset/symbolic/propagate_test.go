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

// TestPropagatePastTheIndex: clauses and variables added after the
// occurrences were indexed propagate as if indexed.
func TestPropagatePastTheIndex(t *testing.T) {
	prefix := [][]lit{{-2, 3}, {-3, 4}}
	x := indexOccurrences(prefix, 4)
	// Added later: 4 implies the new variable 5, and 5 implies 6.
	cnf := append(slices.Clone(prefix), []lit{-4, 5}, []lit{-5, 6}, []lit{-6, 3, 7})
	reduced, set, conflict := propagateWith(x, cnf, []lit{2}, 7, nil)
	fresh, freshSet, freshConflict := propagate(cnf, []lit{2}, 7)
	if conflict != freshConflict || !slices.Equal(set, freshSet) || !slices.EqualFunc(reduced, fresh, slices.Equal) {
		t.Errorf("past the index: %v %v %v; indexed whole: %v %v %v", reduced, set, conflict, fresh, freshSet, freshConflict)
	}
	if !slices.Equal(set, []lit{2, 3, 4, 5, 6}) {
		t.Errorf("set %v, want [2 3 4 5 6]", set)
	}
	if _, _, conflict := propagateWith(x, append(cnf, []lit{-6}), []lit{2}, 7, nil); !conflict {
		t.Error("a unit clause past the index against a propagated literal is a conflict")
	}
}

// TestPropagateReusesItsTrail: a trail used again (after a conflict, over
// more variables, over fewer) answers as a fresh one does.
func TestPropagateReusesItsTrail(t *testing.T) {
	small := [][]lit{{-2, 3}, {-3, 4}}
	big := [][]lit{{2, 3}, {-2, 4}, {-4, 5, 6}, {3, 6}, {-6, 7}}
	var tr trail
	for i, q := range []struct {
		cnf   [][]lit
		units []lit
		nvars int
	}{
		{big, []lit{2, -5}, 7},
		{small, []lit{2, -4}, 4}, // a conflict
		{small, []lit{2}, 4},
		{big, []lit{-3}, 7},
		{big, []lit{2, -5, -6}, 7},
	} {
		reduced, set, conflict := propagateWith(indexOccurrences(q.cnf, q.nvars), q.cnf, q.units, q.nvars, &tr)
		freshReduced, freshSet, freshConflict := propagate(q.cnf, q.units, q.nvars)
		if conflict != freshConflict || !slices.Equal(set, freshSet) || !slices.EqualFunc(reduced, freshReduced, slices.Equal) {
			t.Errorf("question %d with a used trail: %v %v %v; fresh: %v %v %v", i, reduced, set, conflict, freshReduced, freshSet, freshConflict)
		}
	}
}

// TestPropagateLongClause: a clause is unit when all but one of its
// literals are false, whichever order they fall in, and a conflict when
// all are; before that it is left open.
func TestPropagateLongClause(t *testing.T) {
	long := make([]lit, 0, 100)
	for v := 2; v <= 101; v++ {
		long = append(long, v)
	}
	cnf := [][]lit{long}
	var units []lit
	for v := 101; v >= 3; v-- { // every literal false but the first
		units = append(units, -v)
	}
	if _, set, conflict := propagate(cnf, units, 101); conflict || !slices.Contains(set, 2) {
		t.Errorf("all false but 2: set has 2 = %v, conflict %v; want 2 set", slices.Contains(set, 2), conflict)
	}
	if _, _, conflict := propagate(cnf, append(units, -2), 101); !conflict {
		t.Error("every literal false: want a conflict")
	}
	if reduced, set, _ := propagate(cnf, units[1:], 101); slices.Contains(set, 2) || len(reduced) != 1 || len(reduced[0]) != 2 {
		t.Errorf("two literals open: reduced %v, set %v; want the clause left with its two", reduced, set)
	}
}
