package symbolic

import (
	"slices"
	"time"
)

// SearchAlways sends every question that propagation leaves open to the
// search, past the last model and the guesses that settle most: the
// questions that reach it are rare, and the tests of what bounds searches
// (Budget, QueryGuard) set it to make them. Tests only.
var SearchAlways bool

// answer is what one question gave.
type answer int

const (
	unsat answer = iota
	sat
	// timedOut is "not proved": the circuit's whyNot says why.
	timedOut
)

// solve asks whether the circuit's constraints, with the assumptions as
// units, have a model; the model (by variable, 1-based) when they do.
// When it answers timedOut, c.whyNot says why.
// Assumptions are checked for a literal beside its negation first:
// gophersat v1.4.0 answers SAT wrongly to such a set.
func (c *circuit) solve(assume ...lit) (answer, []bool) {
	c.whyNot = ""
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
	if len(reduced) > 0 && !SearchAlways && !slices.ContainsFunc(reduced, func(k []lit) bool { return !satisfied(model, k) }) {
		reduced = nil
	}
	if len(reduced) > 0 && !SearchAlways {
		if guessed := c.guessModel(units, reduced, model); guessed != nil {
			model, reduced = guessed, nil
		}
	}
	if len(reduced) > 0 {
		limit, spent := c.searchLimit()
		if spent != "" {
			c.whyNot = spent
			return timedOut, nil
		}
		start := time.Now()
		ans, sub, why := solveReduced(reduced, limit)
		if c.budget != nil {
			c.budget.spend(time.Since(start))
		}
		switch ans {
		case unsat:
			return ans, nil
		case timedOut:
			c.whyNot = why
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
			c.whyNot = badModel
			return timedOut, nil
		}
	}
	for _, u := range units {
		if !modelValue(model, u) {
			c.whyNot = badModel
			return timedOut, nil
		}
	}
	c.last = model
	return sat, model
}

// badModel is why a question whose model fails the check is not proved.
const badModel = "the solver's model does not satisfy the question"

// notProved says why the last solve answered timedOut, for "not proved".
func (c *circuit) notProved() string {
	if c.whyNot == "" {
		return ranPastGuard
	}
	return c.whyNot
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
