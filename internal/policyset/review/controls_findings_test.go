package review

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

func TestCheckControls(t *testing.T) {
	ps := org()
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	widening := &policyset.Policy{ID: "p-new", Name: "cold keys alone", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && private_key.tags.contains('cold')"}
	deny := &policyset.Policy{ID: "p-deny", Name: "no export", Effect: client.EffectDeny, Condition: "activity.type == '" + export + "'"}

	o := NewOrg(ps, nil)
	if b := o.CheckControls(Change{After: deny}, controls); len(b) != 0 {
		t.Errorf("the deny breaks signing: %+v", b)
	}
	// p-limit lets a hot key sign small transfers alone: a breach before
	// the plan, which is JudgeOrganization's, not the change's.
	got := o.CheckControls(Change{After: widening}, controls)
	if len(got) != 1 || len(got[0].Row.Request.Approvers) != 1 || got[0].Row.After != client.OutcomeAllow {
		t.Errorf("want one newly broken request of one approver, got %+v", got)
	}
	if again := o.CheckControls(Change{After: widening}, controls); len(again) != 0 {
		t.Errorf("reported twice: %d", len(again))
	}
	org := o.JudgeOrganization(controls, nil)
	if len(org) != 1 || org[0].Row.Request.Approvers == nil || org[0].Mended {
		t.Fatalf("the organization breaks signing never alone: %+v", org)
	}
	denied := []Control{{Name: "export denied", ActivityTypes: []string{export}, AtMost: AtMostDenied}}
	if b := NewOrg(ps, nil).CheckControls(Change{After: deny}, denied); len(b) != 0 {
		t.Errorf("a deny newly breaks nothing: %+v", b)
	}
	if b := NewOrg(ps, nil).JudgeOrganization(denied, nil); len(b) != 1 || b[0].Mended {
		t.Errorf("export by admins breaks export denied before the plan: %+v", b)
	}
}

func TestCheckControlsOrderFree(t *testing.T) {
	ps := org()
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	// Deleting the small-transfer allow and adding it back as a consensus
	// policy: in the most permissive state the delete's before version
	// still allows, in either order, so neither change newly breaks the
	// control; the organization broke it before, and once both are counted
	// it no longer does, whichever came first.
	limit := find(ps, "p-limit")
	stricter := *limit
	stricter.ID, stricter.Consensus = "p-limit-2", "approvers.count() >= 2"
	changes := []Change{{Before: limit}, {After: &stricter}}
	judge := func(order []int) (newly, asLeft int) {
		o := NewOrg(ps, nil)
		if len(o.JudgeOrganization(controls, nil)) != 1 {
			t.Fatal("the organization as found should break the control")
		}
		for _, i := range order {
			newly += len(o.CheckControls(changes[i], controls))
		}
		return newly, len(o.JudgeOrganization(controls, nil))
	}
	an, aj := judge([]int{0, 1})
	bn, bj := judge([]int{1, 0})
	if an != 0 || bn != 0 || aj != 0 || bj != 0 {
		t.Errorf("newly %d and %d, broken as the plan leaves it %d and %d; want none", an, bn, aj, bj)
	}
}

func TestFindings(t *testing.T) {
	ps := org()
	o := NewOrg(ps, nil)
	never := &policyset.Policy{ID: "n", Name: "never", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && eth.tx.value > 5 && eth.tx.value < 3"}
	dup := *find(ps, "p-sign")
	dup.ID, dup.Name = "p-dup", "copy"
	ps2 := append(ps, policyset.Policy{ID: "p-noexport", Name: "no export", Effect: client.EffectDeny, Condition: "activity.type == '" + export + "'"})
	shadowed := &policyset.Policy{ID: "s", Name: "export alone", Effect: client.EffectAllow, Condition: "activity.type == '" + export + "'"}
	for name, tc := range map[string]struct {
		o    *Org
		c    Change
		kind string
	}{
		"never":     {o, Change{After: never}, FindingNeverApplies},
		"duplicate": {o, Change{After: &dup}, FindingDuplicate},
		"shadowed":  {NewOrg(ps2, nil), Change{After: shadowed}, FindingShadowed},
	} {
		fs := tc.o.Findings(tc.c)
		// A duplicate is redundant too: removing it changes nothing.
		if len(fs) == 0 || fs[0].Kind != tc.kind || (tc.kind == FindingDuplicate && (len(fs) != 2 || fs[1].Kind != FindingRedundant)) {
			t.Errorf("%s: %+v", name, fs)
		}
	}
	sign := find(ps, "p-sign")
	renamed := *sign
	renamed.Name = "x"
	if fs := o.Findings(Change{Before: sign, After: &renamed}); fs != nil {
		t.Errorf("rename: %+v", fs)
	}
	if fs := o.Findings(Change{Before: sign, After: sign}); fs != nil {
		t.Errorf("unchanged: %+v", fs)
	}
}

// TestFindingsDisprovedByTheReport: the findings on a change the report
// has just reviewed are disproved by the report's witnesses, decided by
// the engine, without building a circuit; and they are the findings a
// fresh Org, without the report, proves with questions.
func TestFindingsDisprovedByTheReport(t *testing.T) {
	ps := oneTypeCorpus(20, 1000)
	changed := oneTypeCorpus(20, 2000)
	c := Change{Before: &ps[7], After: &changed[7]}
	o := NewOrg(ps, nil)
	if r := o.Report(c); r.Empty() {
		t.Fatal("the raise moves no request")
	}
	built := symbolic.QuestionsBuilt()
	withReport := o.Findings(c)
	if n := symbolic.QuestionsBuilt() - built; n != 0 {
		t.Errorf("the findings after the report built %d circuits, want 0", n)
	}
	built = symbolic.QuestionsBuilt()
	alone := NewOrg(ps, nil).Findings(c)
	if symbolic.QuestionsBuilt() == built {
		t.Error("without the report, the findings asked nothing: the test proves nothing")
	}
	if len(withReport) != 0 || len(alone) != 0 {
		t.Errorf("findings: with the report %+v, alone %+v; want none", withReport, alone)
	}
}
