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
	for v := lit(2); v <= 101; v++ {
		long = append(long, v)
	}
	cnf := [][]lit{long}
	var units []lit
	for v := lit(101); v >= 3; v-- { // every literal false but the first
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

// TestSolveReusesItsMemory: a circuit asked again allocates its answer's
// model and the assumptions' copy, not propagation's memory or the
// reduced clauses: a report asks a question's circuit a dozen times.
func TestSolveReusesItsMemory(t *testing.T) {
	c, xs := chainCircuit(40)
	c.clause(xs[0], xs[5])
	ask := func() {
		if ans, _ := c.solve(xs[0], -xs[2]); ans != sat {
			t.Fatalf("answer %v, want sat", ans)
		}
	}
	ask()
	// The model and the assumptions' copy, where a fresh trail and
	// reduced list made it 10.
	if n := testing.AllocsPerRun(20, ask); n > 2 {
		t.Errorf("a solve asked again allocates %v times, want at most 2", n)
	}
}

// TestClauseSlabsGrow: a small circuit's clauses are cut from a small
// slab, and slabs double up to clauseSlab as a circuit grows.
func TestClauseSlabsGrow(t *testing.T) {
	c := newCircuit()
	a, b := c.fresh(), c.fresh()
	c.clause(a, b)
	if got := cap(c.slab); got != firstClauseSlab {
		t.Errorf("first slab holds %d literals, want %d", got, firstClauseSlab)
	}
	for range 2 * clauseSlab {
		c.clause(-a, b)
	}
	if got := cap(c.slab); got != clauseSlab {
		t.Errorf("slab of a grown circuit holds %d literals, want %d", got, clauseSlab)
	}
	for _, k := range c.cnf[1:] {
		if !slices.Equal(k, []lit{a, b}) && !slices.Equal(k, []lit{-a, b}) {
			t.Fatalf("clause %v cut wrongly", k)
		}
	}
}

// TestReleasedCircuitLendsItsMemory: a released circuit's clause list
// and index go to the next circuit emptied (no clause of the old one
// pinned), and the next circuit answers as a fresh one does.
func TestReleasedCircuitLendsItsMemory(t *testing.T) {
	build := func() (*circuit, []lit) { return chainCircuit(60) }
	lent := false
	// sync.Pool may drop what it is given (the race detector drops a
	// quarter on purpose), so the hand-over is tried a few times.
	for range 20 {
		c, xs := build()
		if ans, _ := c.solve(xs[0], -xs[1]); ans != sat {
			t.Fatalf("answer %v, want sat", ans)
		}
		c.release()
		m, ok := spareCircuits.Get().(*circuitMemory)
		if !ok {
			continue
		}
		lent = true
		if len(m.cnf) != 0 || cap(m.cnf) < 58 || m.occ == nil {
			t.Fatalf("lent clause list len %d cap %d, index %v; want empty, the old capacity, an index", len(m.cnf), cap(m.cnf), m.occ != nil)
		}
		for i, k := range m.cnf[:cap(m.cnf)] {
			if k != nil {
				t.Fatalf("lent clause list still holds clause %d: %v", i, k)
			}
		}
		spareCircuits.Put(m)
		// The next circuit, on that memory, answers as a fresh one (built
		// the same way, so with the same variables) does.
		d, ys := build()
		for _, q := range [][]lit{{ys[0], -ys[1]}, {ys[0], -ys[1], -ys[2]}, {-ys[58], -ys[59]}} {
			e, _ := build()
			got, _ := d.solve(q...)
			want, _ := e.solve(q...)
			if got != want {
				t.Errorf("on lent memory %v answers %v, a fresh circuit %v", q, got, want)
			}
		}
	}
	if !lent {
		t.Error("no released circuit's memory reached the pool in 20 tries")
	}
}

// chainCircuit is a circuit over n fresh variables x1..xn with the
// clauses "xi implies x(i+1) or x(i+2)": satisfiable under most small
// sets of assumptions, and long enough to need an index and slabs.
func chainCircuit(n int) (*circuit, []lit) {
	c := newCircuit()
	var xs []lit
	for range n {
		xs = append(xs, c.fresh())
	}
	for i := 0; i+2 < len(xs); i++ {
		c.clause(-xs[i], xs[i+1], xs[i+2])
	}
	return c, xs
}
