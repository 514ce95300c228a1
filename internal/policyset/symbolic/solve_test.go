package symbolic

import "testing"

// TestSolveGuessesBeforeGophersat: what propagation leaves open is first
// guessed at (guessModel); gophersat is asked only when a guess meets a
// conflict, and it alone says that there is no model.
func TestSolveGuessesBeforeGophersat(t *testing.T) {
	ask := func(c *circuit) (answer, []bool, int64) {
		t.Helper()
		before := gophersatCalls.Load()
		ans, model := c.solve()
		if ans == sat {
			for _, k := range c.cnf {
				if !satisfied(model, k) {
					t.Fatalf("model %v leaves clause %v false", model, k)
				}
			}
		}
		return ans, model, gophersatCalls.Load() - before
	}

	// Exactly one of a, b, d: the all-false start fails "at least one",
	// and guessing a settles the rest by propagation.
	c := newCircuit()
	a, b, d := c.fresh(), c.fresh(), c.fresh()
	c.clause(a, b, d)
	c.clause(-a, -b)
	c.clause(-a, -d)
	c.clause(-b, -d)
	if ans, model, calls := ask(c); ans != sat || calls != 0 || !model[a] {
		t.Errorf("one of three: %v, a=%v, %d gophersat calls; want sat by guessing a, none", ans, model != nil && model[a], calls)
	}

	// Guessing a meets a conflict (a implies x and not x): gophersat
	// finds b.
	c = newCircuit()
	a, b, x := c.fresh(), c.fresh(), c.fresh()
	c.clause(a, b)
	c.clause(-a, x)
	c.clause(-a, -x)
	if ans, model, calls := ask(c); ans != sat || calls != 1 || model[a] || !model[b] {
		t.Errorf("a guess that conflicts: %v, %d gophersat calls; want sat with b, by gophersat", ans, calls)
	}

	// No model, and none that propagation alone finds: only gophersat
	// says unsat.
	c = newCircuit()
	a, b = c.fresh(), c.fresh()
	c.clause(a, b)
	c.clause(a, -b)
	c.clause(-a, b)
	c.clause(-a, -b)
	if ans, _, calls := ask(c); ans != unsat || calls != 1 {
		t.Errorf("no model: %v, %d gophersat calls; want unsat from gophersat", ans, calls)
	}
}

// TestSolveNeverAssumesBothPolarities: a literal assumed beside its
// negation is unsat before any solver sees it (gophersat v1.4.0 answers
// such a set SAT), even where the clauses alone leave it free.
func TestSolveNeverAssumesBothPolarities(t *testing.T) {
	c := newCircuit()
	a, b := c.fresh(), c.fresh()
	c.clause(a, b)
	before := gophersatCalls.Load()
	if ans, _ := c.solve(b, a, -a); ans != unsat {
		t.Errorf("a and not a assumed: %v, want unsat", ans)
	}
	if calls := gophersatCalls.Load() - before; calls != 0 {
		t.Errorf("%d gophersat calls, want none", calls)
	}
	if ans, _ := c.solve(a, b); ans != sat {
		t.Errorf("a and b assumed: %v, want sat", ans)
	}
}
