package review

import (
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// TestReportBudgets: with every open question sent to the search, a
// report whose type budget, or whose command's budget, is spent says "not
// proved", naming the budget, and never "no change"; a control judged
// past the command's budget is not proved, naming it.
func TestReportBudgets(t *testing.T) {
	defer func(typ, plan time.Duration) { TypeBudget, PlanBudget, symbolic.SearchAlways = typ, plan, false }(TypeBudget, PlanBudget)
	symbolic.SearchAlways = true
	ps := org()
	raised := *find(ps, "p-limit")
	raised.Condition = strings.Replace(raised.Condition, "1000000000000000000", "2000000000000000000", 1)
	change := Change{Before: find(ps, "p-limit"), After: &raised}
	for _, c := range []struct {
		name string
		set  func()
		what string
	}{
		{"a type's", func() { TypeBudget, PlanBudget = 0, time.Hour }, signTx + " of this change"},
		{"the command's", func() { TypeBudget, PlanBudget = time.Hour, 0 }, "this plan"},
	} {
		c.set()
		r := NewOrg(ps, nil).Report(change)
		notProved := 0
		for _, row := range r.Rows {
			if row.Proved {
				t.Errorf("%s budget spent: a proved row %+v", c.name, row)
			}
			if row.After == NotProved && strings.Contains(row.Words, "time budget for "+c.what+" ran out") {
				notProved++
			}
		}
		if notProved == 0 {
			t.Errorf("%s budget spent: no not-proved row naming it:\n%s", c.name, r.Detail(10))
		}
	}
	PlanBudget = 0
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	alone := policyset.Policy{Name: "alone", Effect: client.EffectAllow, Condition: "activity.type == '" + signTx + "'"}
	got := NewOrg(ps, nil).CheckControls(Change{After: &alone}, controls)
	if len(got) != 1 || !strings.Contains(got[0].NotProved, "time budget for this plan ran out") {
		t.Errorf("a control past the command's budget: %+v", got)
	}
	// The organization's own judgment too.
	judged := NewOrg(ps, nil).JudgeOrganization(controls, nil)
	if len(judged) != 1 || !strings.Contains(judged[0].NotProved, "time budget for this plan ran out") {
		t.Errorf("the organization judged past the command's budget: %+v", judged)
	}
}
