package review

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// TestControlsAnsweredByTheReport: after a change's report, a control on
// a change that newly allows nothing alone is proved without a question
// of its own, and one that does is still a breach, with its witness.
func TestControlsAnsweredByTheReport(t *testing.T) {
	ps, raised := oneTypeCorpus(20, 1000), oneTypeCorpus(20, 2000)
	controls := []Control{{Name: "transactions never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	o := NewOrg(ps, nil)
	// The first change also asks whether the control was broken before
	// the plan, once per command.
	first := Change{Before: &ps[0], After: &raised[0]}
	o.Report(first)
	o.CheckControls(first, controls)

	second := Change{Before: &ps[1], After: &raised[1]}
	o.Report(second)
	built := symbolic.QuestionsBuilt()
	if b := o.CheckControls(second, controls); len(b) != 0 {
		t.Errorf("a raised limit that still needs two approvers breaks the control: %+v", b)
	}
	if n := symbolic.QuestionsBuilt() - built; n != 0 {
		t.Errorf("the control built %d circuits after the report, want 0", n)
	}

	alone := raised[2]
	alone.Consensus = ""
	third := Change{Before: &ps[2], After: &alone}
	o.Report(third)
	b := o.CheckControls(third, controls)
	if len(b) != 1 || len(b[0].Row.Request.Approvers) != 1 {
		t.Fatalf("a limit anyone may sign alone: breaches %+v, want one, newly, of one approver", b)
	}
}

// TestControlsAfterTheReportAgree: over random organizations and changes,
// the controls judged after the change's report (which may answer them)
// find the breaches that the controls' own questions find.
func TestControlsAfterTheReportAgree(t *testing.T) {
	conds := []string{
		"activity.type == '" + signTx + "'",
		"activity.type == '" + signTx + "' && eth.tx.value <= 10",
		"activity.type == '" + signTx + "' && eth.tx.value > 5",
		"activity.type == '" + signTx + "' && eth.tx.to == '0x01'",
		"activity.type == '" + signTx + "' && private_key.tags.contains('hot')",
		"activity.type == '" + signTx + "' && !private_key.tags.contains('cold')",
	}
	conss := []string{"", "approvers.count() >= 2", "approvers.any(u, u.tags.contains('ops'))",
		"approvers.filter(u, u.tags.contains('ops')).count() >= 2", "approvers.count() >= 2 || approvers.any(u, u.tags.contains('ops'))"}
	controls := []Control{{Name: "never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus},
		{Name: "never", ActivityTypes: []string{signTx}, AtMost: AtMostDenied}}
	r := rand.New(rand.NewPCG(39, 1))
	policy := func(id string) policyset.Policy {
		p := policyset.Policy{ID: id, Effect: client.EffectAllow, Condition: conds[r.IntN(len(conds))], Consensus: conss[r.IntN(len(conss))]}
		if r.IntN(5) == 0 {
			p.Effect, p.Consensus = client.EffectDeny, ""
		}
		return p
	}
	for n := 0; n < 150; n++ {
		ps := make([]policyset.Policy, 1+r.IntN(3))
		for i := range ps {
			ps[i] = policy(fmt.Sprintf("p%d", i))
		}
		after := policy("p0")
		after.Effect = client.EffectAllow
		c := Change{Before: &ps[0], After: &after}
		if r.IntN(3) == 0 {
			c = Change{After: &after}
			after.ID = "new"
		}
		withReport := NewOrg(ps, nil)
		withReport.Report(c)
		got := withReport.CheckControls(c, controls)
		want := NewOrg(ps, nil).CheckControls(c, controls)
		if summary(got) != summary(want) {
			t.Fatalf("case %d: org %+v, change to %+v:\nafter the report %s\nalone %s", n, ps, after, summary(got), summary(want))
		}
	}
}

// summary is which controls a list of breaches names, and how.
func summary(bs []Breach) string {
	s := ""
	for _, b := range bs {
		s += fmt.Sprintf("%s notproved=%q; ", b.Control.Name, b.NotProved)
	}
	return s
}
