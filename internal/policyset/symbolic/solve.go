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
		c.occ = indexOccurrences(c.cnf, c.nvars)
	}
	reduced, set, conflict := propagateWith(c.occ, c.cnf, units, c.nvars)
	if conflict {
		return unsat, nil
	}
	model := make([]bool, c.nvars+1)
	// The open variables start at the circuit's last model: where that
	// still satisfies the clauses propagation left (about half the time in
	// a report, whose questions differ by an assumption or two), gophersat
	// is not needed. The model is checked below like any other.
	copy(model, c.last)
	for _, u := range set {
		model[abs(u)] = u > 0
	}
	if len(reduced) > 0 && !slices.ContainsFunc(reduced, func(k []lit) bool { return !satisfied(model, k) }) {
		reduced = nil
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

// solveReduced hands the clauses propagation left to gophersat, under
// QueryGuard, with their variables renumbered 1..k: the solver allocates
// per variable, and a question's circuit holds every policy's gates while
// few are still open after propagation. The model is by the circuit's
// variables.
func solveReduced(reduced [][]lit) (answer, map[int]bool) {
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
	v := l
	if v < 0 {
		v = -v
	}
	b := v < len(model) && model[v]
	if l < 0 {
		return !b
	}
	return b
}

// abs is a literal's variable.
func abs(l lit) int {
	if l < 0 {
		return -l
	}
	return l
}
