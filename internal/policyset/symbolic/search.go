package symbolic

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/crillab/gophersat/solver"
)

// gophersat is the last resort (solve asks it only where propagation and
// guessing leave a question open), and two of its properties shape how it
// is asked:
//
//   - Solve has no budget and no cancellation. A search that runs past
//     QueryGuard is abandoned: its question is "not proved", and the
//     search goes on in its goroutine until it ends or the process does.
//   - v1.4.0 builds the clause it learns from a conflict in a buffer that
//     is a package variable (solver/learn.go, bufLits), shared by every
//     solver. Two searches learning at once write into each other's
//     clause, which panics (an index out of range in sortLiterals or
//     computeLbd, in a goroutine nothing recovers: the provider process
//     dies, "Plugin did not respond", when a plan evaluates many
//     policy_changes calls at once) or learns a clause neither problem
//     implies, a possible false "no change".
//
// So one search runs at a time in the process, an abandoned one included:
// searchSlot is held from the search's start to its end. A question that
// would need gophersat while an abandoned search still runs is not proved
// at once, without waiting: that search may never end.

// QueryGuard is how long one question may take on the wall clock, waiting
// for the solver included. Past it the answer is "not proved". Queries
// are kept small (each asks about the policies a change's guards admit),
// so the guard should never fire; the differential test and the bench
// count how often it does. Tests lower it.
var QueryGuard = 2 * time.Second

// searchSlot is held by the one search running.
var searchSlot = make(chan struct{}, 1)

// liveAbandoned counts the searches past QueryGuard still running: at
// most one, as each holds searchSlot.
var liveAbandoned atomic.Int64

// guardFired counts the questions that ran past QueryGuard.
var guardFired atomic.Int64

// GuardFired is how many questions ran past QueryGuard in this process.
func GuardFired() int64 { return guardFired.Load() }

// gophersatCalls counts the questions handed to gophersat, for tests.
var gophersatCalls atomic.Int64

// maxSearchClauses and maxSearchVars are the most clauses and variables
// one question may hand gophersat: the bound on a search's memory, which
// grows with its problem and what it learns, and which an abandoned
// search keeps. The largest question measured (go test
// ./internal/policyset/... and the review package's benchmarks) handed it
// 24,452 clauses over 8,196 variables (57,095 literals), in about 0.1 s;
// the bounds are ten times that, so no question the analysis meant to ask
// meets them.
const (
	maxSearchClauses = 250_000
	maxSearchVars    = 100_000
)

// searchBudget is what solveReduced checks; tests lower it.
var searchBudget = struct{ clauses, vars int }{maxSearchClauses, maxSearchVars}

// Why a question gophersat did not answer is not proved.
const (
	ranPastGuard   = "the question ran past its time limit"
	waitedPast     = "the question ran past its time limit waiting for the solver, which runs one search at a time"
	abandonedStill = "a search past its time limit is still running, and the solver runs one search at a time"
)

// A search's state: whoever moves it from searching first decides
// whether it was abandoned (the question's guard) or finished (the
// search).
const (
	searching int32 = iota
	finished
	abandoned
)

// searchResult is what one search gave; panicked is a panic it recovered.
type searchResult struct {
	status   solver.Status
	model    []bool
	panicked any
}

// solveReduced hands the clauses propagation left to gophersat, under
// limit (QueryGuard, or less where a Budget leaves less), with their variables renumbered 1..k: the solver allocates
// per variable, and a question's circuit holds every policy's gates while
// few are still open after propagation. The model is by the circuit's
// variables; why says what stopped a timedOut answer.
func solveReduced(reduced [][]lit, limit time.Duration) (_ answer, _ map[int]bool, why string) {
	if n := len(reduced); n > searchBudget.clauses {
		return timedOut, nil, fmt.Sprintf("the question needs %d clauses, more than the %d the analysis gives one question", n, searchBudget.clauses)
	}
	// The search gets copies: reduced is the circuit's memory, which a
	// released circuit lends to the next (spareCircuits) while an
	// abandoned search may still run.
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
	if n := len(circuitVar); n > searchBudget.vars {
		return timedOut, nil, fmt.Sprintf("the question needs %d variables, more than the %d the analysis gives one question", n, searchBudget.vars)
	}
	if liveAbandoned.Load() > 0 {
		return timedOut, nil, abandonedStill
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case searchSlot <- struct{}{}:
	case <-timer.C:
		guardFired.Add(1)
		return timedOut, nil, waitedPast
	}
	gophersatCalls.Add(1)
	var state atomic.Int32
	done := make(chan searchResult, 1)
	go search(cnf, len(circuitVar), &state, done)
	var r searchResult
	select {
	case r = <-done:
	case <-timer.C:
		if state.CompareAndSwap(searching, abandoned) {
			liveAbandoned.Add(1)
			guardFired.Add(1)
			return timedOut, nil, ranPastGuard
		}
		r = <-done // it finished as the guard fired
	}
	switch {
	case r.panicked != nil:
		return timedOut, nil, fmt.Sprintf("the solver failed: %v", r.panicked)
	case r.status != solver.Sat:
		return unsat, nil, ""
	}
	model := make(map[int]bool, len(circuitVar))
	for i, v := range circuitVar {
		model[v] = i < len(r.model) && r.model[i]
	}
	return sat, model, ""
}

// search runs gophersat on cnf, holding searchSlot (taken by its caller)
// until it ends, and sends what it gave on done (buffered: an abandoned
// search's result is dropped). A panic is recovered and sent: the solver
// is another project's code, and a panic in this goroutine would end the
// provider's process, the plan with it.
func search(cnf [][]int, nvars int, state *atomic.Int32, done chan<- searchResult) {
	defer func() {
		if !state.CompareAndSwap(searching, finished) {
			liveAbandoned.Add(-1)
		}
		// The count drops before the slot frees: no question is refused
		// for a search that has ended.
		<-searchSlot
	}()
	defer func() {
		if p := recover(); p != nil {
			done <- searchResult{panicked: p}
		}
	}()
	pb := solver.ParseSliceNb(cnf, nvars)
	if pb.Status == solver.Unsat {
		done <- searchResult{status: solver.Unsat}
		return
	}
	s := solver.New(pb)
	st := s.Solve()
	var m []bool
	if st == solver.Sat {
		m = s.Model()
	}
	done <- searchResult{status: st, model: m}
}
