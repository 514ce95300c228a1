package symbolic

import (
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestBudgetBoundsSearches: a question whose budget, or one it is within,
// is spent is not proved, naming the budget that ran out, and gophersat
// never sees it; within a budget, the search runs and its time is counted
// against the budget and those it is within.
func TestBudgetBoundsSearches(t *testing.T) {
	plan := NewBudget(time.Hour, "this plan", nil)
	typ := NewBudget(time.Hour, "ACTIVITY_TYPE_X of this change", plan)
	c := pigeonQuestion(6, 5)
	c.budget = typ
	if ans, _ := c.solve(); ans != unsat {
		t.Fatalf("within the budgets: %v, want unsat", ans)
	}
	c.release()
	if typ.spent.Load() == 0 || plan.spent.Load() != typ.spent.Load() {
		t.Errorf("the search's time should count against both budgets: %d, %d ns", typ.spent.Load(), plan.spent.Load())
	}
	for _, spent := range []*Budget{plan, typ} {
		spent.spent.Store(int64(time.Hour))
		c := pigeonQuestion(6, 5)
		c.budget = typ
		before := gophersatCalls.Load()
		ans, _ := c.solve()
		if ans != timedOut || c.notProved() != "the review's time budget for "+spent.what+" ran out" {
			t.Errorf("%s spent: %v (%s), want not proved naming it", spent.what, ans, c.notProved())
		}
		if n := gophersatCalls.Load() - before; n != 0 {
			t.Errorf("%s spent: %d gophersat calls, want none", spent.what, n)
		}
		c.release()
		spent.spent.Store(0)
	}
}

// TestRegionsWithinBudget: a report's type whose budget is spent gives
// not-proved regions naming it, and says it was guarded (no caller may
// then say "no change"); with time left, the same question is proved.
func TestRegionsWithinBudget(t *testing.T) {
	defer func() { SearchAlways = false }()
	SearchAlways = true
	cond := "activity.type == '" + diffType + "'"
	before := []policyset.Policy{{ID: "l", Name: "limit", Effect: client.EffectAllow, Condition: cond + " && eth.tx.value <= 10"}}
	after := []policyset.Policy{{ID: "l", Name: "limit", Effect: client.EffectAllow, Condition: cond + " && eth.tx.value <= 20"}}
	spent := NewBudget(0, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2 of this change", nil)
	rs, _, guarded := RegionsWithin(spent, diffType, before, after, append(before, after...), nil)
	if !guarded || len(rs) == 0 {
		t.Fatalf("a spent budget: guarded %v, %d regions", guarded, len(rs))
	}
	for _, r := range rs {
		if r.Proved || !strings.Contains(r.NotProved, "time budget for ACTIVITY_TYPE_SIGN_TRANSACTION_V2 of this change ran out") {
			t.Errorf("want not proved, naming the budget: %+v", r)
		}
	}
	left := NewBudget(time.Hour, "this plan", nil)
	rs, _, guarded = RegionsWithin(left, diffType, before, after, append(before, after...), nil)
	if guarded || len(rs) != 1 || !rs[0].Proved {
		t.Fatalf("with time left: guarded %v, %+v", guarded, rs)
	}
	if left.spent.Load() == 0 {
		t.Error("the searches' time was not counted")
	}
}
