package symbolic

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pigeonQuestion is a circuit that only gophersat answers, with conflicts
// for it to learn from (where its shared buffer goes wrong): fit pigeons
// in holes, one to a hole. With more pigeons than holes it has no model,
// which neither propagation nor guessing says. With as many, it has one,
// and a first clause whose guess conflicts (as in
// TestSolveGuessesBeforeGophersat) sends it to gophersat.
func pigeonQuestion(pigeons, holes int) *circuit {
	c := newCircuit()
	a, b, x := c.fresh(), c.fresh(), c.fresh()
	c.clause(a, b)
	c.clause(-a, x)
	c.clause(-a, -x)
	in := make([][]lit, pigeons) // in[p][h]: pigeon p in hole h
	for p := range in {
		in[p] = make([]lit, holes)
		for h := range in[p] {
			in[p][h] = c.fresh()
		}
		c.clause(in[p]...)
	}
	for h := 0; h < holes; h++ {
		for p := range in {
			for q := p + 1; q < pigeons; q++ {
				c.clause(-in[p][h], -in[q][h])
			}
		}
	}
	return c
}

// askPigeons asks one pigeon question and releases its circuit (lending
// its memory to the next, while a search abandoned on it may run): ""
// when the answer is right or not proved, else what is wrong. why is the
// not-proved reason.
func askPigeons(pigeons, holes int) (ans answer, why, wrong string) {
	c := pigeonQuestion(pigeons, holes)
	defer c.release()
	ans, model := c.solve()
	switch {
	case ans == timedOut:
		return ans, c.notProved(), ""
	case pigeons > holes && ans != unsat:
		return ans, "", fmt.Sprintf("%d pigeons in %d holes: %v, want unsat", pigeons, holes, ans)
	case pigeons <= holes && ans != sat:
		return ans, "", fmt.Sprintf("%d pigeons in %d holes: %v, want sat", pigeons, holes, ans)
	case ans == sat && len(model) == 0:
		return ans, "", "sat without a model"
	}
	return ans, "", ""
}

// TestConcurrentQuestionsAnswerRight: questions asked at once, as a plan's
// many policy_changes calls ask them, all needing gophersat, answer as one
// at a time would. gophersat v1.4.0 shares the buffer it learns clauses
// in between solvers: two searches at once panicked (index out of range,
// ending the process) until searches took turns (searchSlot).
func TestConcurrentQuestionsAnswerRight(t *testing.T) {
	var wg sync.WaitGroup
	var proved atomic.Int64
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 6 {
				holes := 4 + (g+i)%3
				pigeons := holes + (g+i)%2 // half have no model
				ans, why, wrong := askPigeons(pigeons, holes)
				if wrong != "" {
					errs <- wrong
					return
				}
				// Under load a question may wait past its guard; a
				// solver that failed is the defect.
				if ans == timedOut && why != ranPastGuard && why != waitedPast {
					errs <- "not proved: " + why
					return
				}
				if ans != timedOut {
					proved.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if proved.Load() == 0 {
		t.Error("no question answered")
	}
}

// TestAbandonedSearchesDoNotPileUp: with a guard of a few microseconds
// nearly every search is abandoned; gophersat cannot be stopped, so they
// would pile up, in CPU and memory. At most one runs (it holds the
// solver), a question meanwhile is not proved at once, every answer is
// right or not proved, and once the searches end the count is back to
// zero and questions are answered again. The differential test's cases
// run alongside, through the analysis' own questions.
func TestAbandonedSearchesDoNotPileUp(t *testing.T) {
	defer func(d time.Duration) { QueryGuard = d }(QueryGuard)
	QueryGuard = 5 * time.Microsecond

	var peak atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if n := liveAbandoned.Load(); n > peak.Load() {
				peak.Store(n)
			}
			runtime.Gosched()
		}
	}()

	var wg sync.WaitGroup
	var refused atomic.Int64
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				holes := 5 + (g+i)%2
				ans, why, wrong := askPigeons(holes+1, holes)
				if n := liveAbandoned.Load(); n > 1 {
					errs <- fmt.Sprintf("%d abandoned searches running", n)
				}
				switch {
				case wrong != "":
					errs <- wrong
				case ans == timedOut && why == abandonedStill:
					refused.Add(1)
				case ans == timedOut && why != ranPastGuard && why != waitedPast:
					errs <- "not proved for an unexpected reason: " + why
				}
			}
		})
	}
	for _, seed := range []uint64{2, 3} {
		wg.Go(func() {
			// A question past its guard is not proved, so the moves are
			// incomplete; the rest must match the enumeration.
			if why := checkDifferential(seed); why != "" && why != "a question ran past its time limit" {
				errs <- why
			}
		})
	}
	wg.Wait()
	close(stop)
	<-watched
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if p := peak.Load(); p > 1 {
		t.Errorf("%d abandoned searches ran at once, want at most 1", p)
	}
	if refused.Load() == 0 {
		t.Error("no question was refused while an abandoned search ran")
	}

	// The abandoned searches end (these take milliseconds), and with
	// them the count.
	for deadline := time.Now().Add(time.Minute); liveAbandoned.Load() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d abandoned searches still running after a minute", liveAbandoned.Load())
		}
	}
	QueryGuard = time.Minute
	if ans, why, wrong := askPigeons(6, 5); ans != unsat {
		t.Errorf("after the searches ended: %v (%s%s), want unsat", ans, why, wrong)
	}
}

// TestSearchBudget: a question with more clauses or variables than the
// budget gives one is not proved, naming its size, and gophersat never
// sees it.
func TestSearchBudget(t *testing.T) {
	defer func(b struct{ clauses, vars int }) { searchBudget = b }(searchBudget)
	for _, c := range []struct {
		clauses, vars int
		want          string
	}{
		{clauses: 10, vars: maxSearchVars, want: "clauses, more than the 10 the analysis gives one question"},
		{clauses: maxSearchClauses, vars: 10, want: "variables, more than the 10 the analysis gives one question"},
	} {
		searchBudget.clauses, searchBudget.vars = c.clauses, c.vars
		before := gophersatCalls.Load()
		ans, why, wrong := askPigeons(6, 5)
		if ans != timedOut || !strings.Contains(why, c.want) || wrong != "" {
			t.Errorf("budget %d clauses, %d variables: %v (%s%s), want not proved: ... %s", c.clauses, c.vars, ans, why, wrong, c.want)
		}
		if n := gophersatCalls.Load() - before; n != 0 {
			t.Errorf("budget %d clauses, %d variables: %d gophersat calls, want none", c.clauses, c.vars, n)
		}
	}
	searchBudget.clauses, searchBudget.vars = maxSearchClauses, maxSearchVars
	if ans, why, wrong := askPigeons(6, 5); ans != unsat {
		t.Errorf("within the budget: %v (%s%s), want unsat", ans, why, wrong)
	}
}

// TestSearchRecoversSolverPanic: a panic in gophersat is "not proved"
// (here its parser's, on a literal 0), not the end of the process, and
// the solver is free after.
func TestSearchRecoversSolverPanic(t *testing.T) {
	searchSlot <- struct{}{}
	var state atomic.Int32
	done := make(chan searchResult, 1)
	search([][]int{{0}}, 1, &state, done)
	if r := <-done; r.panicked == nil {
		t.Errorf("a literal 0: %+v, want the parser's panic", r)
	}
	select {
	case searchSlot <- struct{}{}:
		<-searchSlot
	default:
		t.Error("the solver is still held after the search ended")
	}
}
