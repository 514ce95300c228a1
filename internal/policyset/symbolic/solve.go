package symbolic

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/crillab/gophersat/solver"
)

// QueryGuard is how long one question may take on the wall clock. Past
// it the answer is "not proved": gophersat's Solve has no budget and no
// cancellation, so the abandoned search goes on in its goroutine until it
// ends or the process does. Queries are kept small (each asks about the
// policies a change's guards admit), so the guard should never fire; the
// differential test and the bench count how often it does.
var QueryGuard = 2 * time.Second

// answer is what one question gave.
type answer int

const (
	unsat answer = iota
	sat
	timedOut
)

// guardFired counts the questions that ran past QueryGuard.
var guardFired atomic.Int64

// GuardFired is how many questions ran past QueryGuard in this process.
func GuardFired() int64 { return guardFired.Load() }

// gophersatCalls counts the questions handed to gophersat, for tests.
var gophersatCalls atomic.Int64

// solve asks whether the circuit's constraints, with the assumptions as
// units, have a model; the model (by variable, 1-based) when they do.
// Assumptions are checked for a literal beside its negation first:
// gophersat v1.4.0 answers SAT wrongly to such a set.
func (c *circuit) solve(assume ...lit) (answer, []bool) {
	units := slices.Clone(assume)
	slices.Sort(units)
	units = slices.Compact(units)
	for _, u := range units {
		if u == litFalse {
			return unsat, nil
		}
		if u < 0 {
			if _, both := slices.BinarySearch(units, -u); both {
				return unsat, nil
			}
		}
	}
	// Plain clauses, solved by gophersat's CNF path: its pseudo-boolean
	// path (counts, cardinalities) was found unsound, and it re-simplifies
	// every constraint as a weighted one, most of a question's cost. Unit
	// propagation is done first, here (propagate).
	if c.occ == nil || len(c.cnf)-c.occ.nclauses > staleOccurrences {
		// The index replaced (or a released circuit's) lends its memory.
		if c.occ == nil {
			c.occ, c.spareOcc = c.spareOcc, nil
		}
		if c.occ == nil {
			c.occ = new(occurrences)
		}
		c.occ.build(c.cnf, c.nvars)
	}
	reduced, set, conflict := propagateWith(c.occ, c.cnf, units, c.nvars, &c.trail)
	if conflict {
		return unsat, nil
	}
	// The open variables start at the circuit's last model: where that
	// still satisfies the clauses propagation left (about half the time in
	// a report, whose questions differ by an assumption or two), gophersat
	// is not needed. Failing that, a few guesses, each propagated
	// (guessModel). Either model is checked below like any other.
	model := c.startingModel(set)
	if len(reduced) > 0 && !slices.ContainsFunc(reduced, func(k []lit) bool { return !satisfied(model, k) }) {
		reduced = nil
	}
	if len(reduced) > 0 {
		if guessed := c.guessModel(units, reduced, model); guessed != nil {
			model, reduced = guessed, nil
		}
	}
	if len(reduced) > 0 {
		switch ans, sub := solveReduced(reduced); ans {
		case unsat, timedOut:
			return ans, nil
		default:
			for v, b := range sub {
				model[v] = b
			}
		}
	}
	// A model is checked against every clause before it is used (the
	// circuit's own and the assumptions, not the reduced ones): a solver's
	// mistake must not become a witness.
	for _, k := range c.cnf {
		if !satisfied(model, k) {
			return timedOut, nil
		}
	}
	for _, u := range units {
		if !modelValue(model, u) {
			return timedOut, nil
		}
	}
	c.last = model
	return sat, model
}

// startingModel is the circuit's last model with the literals set
// overriding it.
func (c *circuit) startingModel(set []lit) []bool {
	model := make([]bool, c.nvars+1)
	copy(model, c.last)
	for _, u := range set {
		model[abs(u)] = u > 0
	}
	return model
}

// maxGuesses bounds guessModel's guesses.
const maxGuesses = 8

// guessModel looks for a model without gophersat: it makes an open
// literal of a clause that the starting model leaves false true, as a
// further unit, propagates, and goes on while such clauses are left, at
// most maxGuesses times. It never goes back on a guess and never says
// that there is no model: a conflict or the bound sends the question to
// gophersat, which is the solver. A report's questions are mostly
// "choose a class of each field, and a count of approvers" once the
// verdicts are assumed, which one guess per choice settles; gophersat
// costs an instance of about 50 KB per call however small the question.
// Only the reduced clauses need checking: every other clause is satisfied
// by the units' propagation, which each guess's propagation extends.
func (c *circuit) guessModel(units []lit, reduced [][]lit, model []bool) []bool {
	guesses := slices.Clone(units)
	for n := 0; ; n++ {
		i := slices.IndexFunc(reduced, func(k []lit) bool { return !satisfied(model, k) })
		if i < 0 {
			return model
		}
		if n == maxGuesses {
			return nil
		}
		// An open literal of the clause: propagation leaves none only
		// where it finds a conflict, but the solver is asked rather than
		// trusting that here.
		open := slices.IndexFunc(reduced[i], func(l lit) bool { return c.trail.valueOf(l) == 0 })
		if open < 0 {
			return nil
		}
		guesses = append(guesses, reduced[i][open])
		set, conflict := c.trail.propagate(c.occ, c.cnf, guesses, c.nvars)
		if conflict {
			return nil
		}
		model = c.startingModel(set)
	}
}

// solveReduced hands the clauses propagation left to gophersat, under
// QueryGuard, with their variables renumbered 1..k: the solver allocates
// per variable, and a question's circuit holds every policy's gates while
// few are still open after propagation. The model is by the circuit's
// variables.
func solveReduced(reduced [][]lit) (answer, map[int]bool) {
	gophersatCalls.Add(1)
	local := map[int]int{}
	var circuitVar []int // by local variable - 1
	cnf := make([][]int, len(reduced))
	for i, k := range reduced {
		out := make([]int, len(k))
		for j, l := range k {
			v := abs(l)
			n, ok := local[v]
			if !ok {
				circuitVar = append(circuitVar, v)
				n = len(circuitVar)
				local[v] = n
			}
			if l < 0 {
				n = -n
			}
			out[j] = n
		}
		cnf[i] = out
	}
	type result struct {
		status solver.Status
		model  []bool
	}
	done := make(chan result, 1)
	go func() {
		pb := solver.ParseSliceNb(cnf, len(circuitVar))
		if pb.Status == solver.Unsat {
			done <- result{status: solver.Unsat}
			return
		}
		s := solver.New(pb)
		st := s.Solve()
		var m []bool
		if st == solver.Sat {
			m = s.Model()
		}
		done <- result{st, m}
	}()
	timer := time.NewTimer(QueryGuard)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.status != solver.Sat {
			return unsat, nil
		}
		model := make(map[int]bool, len(circuitVar))
		for i, v := range circuitVar {
			model[v] = i < len(r.model) && r.model[i]
		}
		return sat, model
	case <-timer.C:
		guardFired.Add(1)
		return timedOut, nil
	}
}

// satisfied: some literal of the clause holds.
func satisfied(model []bool, clause []lit) bool {
	return slices.ContainsFunc(clause, func(l lit) bool { return modelValue(model, l) })
}

// modelValue is a literal's value in a model; a variable the solver never saw
// is false.
func modelValue(model []bool, l lit) bool {
	v := abs(l)
	b := v < len(model) && model[v]
	if l < 0 {
		return !b
	}
	return b
}

// abs is a literal's variable.
func abs(l lit) int {
	if l < 0 {
		return int(-l)
	}
	return int(l)
}
