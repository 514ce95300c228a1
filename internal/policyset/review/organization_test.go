package review

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestJudgeOrganization: an allow made beside the configuration breaks a
// control, the breach names it as the policy that takes part, and its
// witness replays; removing it mends the control, and the judgment says
// which removal did.
func TestJudgeOrganization(t *testing.T) {
	ps := []policyset.Policy{
		{ID: "p-sign", Name: "signing needs two", Effect: client.EffectAllow,
			Condition: "activity.type == '" + signTx + "'", Consensus: "approvers.count() >= 2"},
		{ID: "p-ops", Name: "ops signs alone", Effect: client.EffectAllow, Condition: "activity.type == '" + signTx + "'"},
	}
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}

	got := NewOrg(ps, nil).JudgeOrganization(controls, nil)
	if len(got) != 1 || got[0].Mended || got[0].NotProved != "" {
		t.Fatalf("want one breach, got %+v", got)
	}
	b := got[0]
	if len(b.TakingPart) != 1 || b.TakingPart[0].ID != "p-ops" {
		t.Errorf("the breach should name ops signs alone, and only it: %+v", b.TakingPart)
	}
	if d := policyset.Decide(ps, b.Row.Request); d.Verdict != client.OutcomeAllow || len(b.Row.Request.Approvers) != 1 {
		t.Errorf("the witness %s decides %s with %d approvers, want allowed alone", b.Row.Example, d.Verdict, len(b.Row.Request.Approvers))
	}

	mended := NewOrg(ps, nil).JudgeOrganization(controls, []string{"p-ops"})
	if len(mended) != 1 || !mended[0].Mended || len(mended[0].TakingPart) != 1 || mended[0].TakingPart[0].ID != "p-ops" {
		t.Errorf("removing ops signs alone should mend the control, naming it: %+v", mended)
	}

	// Removing another policy mends nothing: the breach stands.
	still := NewOrg(ps, nil).JudgeOrganization(controls, []string{"p-sign"})
	if len(still) != 1 || still[0].Mended {
		t.Errorf("removing signing needs two leaves the breach: %+v", still)
	}
}

// TestJudgeOrganizationCountsThePlan: a planned change that takes the
// grant back mends the organization as the plan leaves it. A grant the
// plan makes is the change's breach, not the organization's: each breach
// is named once, by the judgment whose it is.
func TestJudgeOrganizationCountsThePlan(t *testing.T) {
	ops := policyset.Policy{ID: "p-ops", Name: "ops signs alone", Effect: client.EffectAllow, Condition: "activity.type == '" + signTx + "'"}
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}

	o := NewOrg([]policyset.Policy{ops}, nil)
	fixed := ops
	fixed.Consensus = "approvers.count() >= 2"
	o.CheckControls(Change{Before: &ops, After: &fixed}, controls)
	if got := o.JudgeOrganization(controls, nil); len(got) != 0 {
		t.Errorf("the plan takes the grant back: %+v", got)
	}

	o = NewOrg(nil, nil)
	created := ops
	created.ID = ""
	if newly := o.CheckControls(Change{After: &created}, controls); len(newly) != 1 || newly[0].NotProved != "" {
		t.Fatalf("a created grant newly breaks the control: %+v", newly)
	}
	if got := o.JudgeOrganization(controls, nil); len(got) != 0 {
		t.Errorf("the created grant is the change's breach, named there; the organization's judgment names it again: %+v", got)
	}
}

// TestJudgeOrganizationKeepsWhatWasBroken: a grant outside the plan and a
// grant the plan widens each break the control; the plan's change names
// its own, and the organization's judgment the one that was there. A
// managed grant whose new version still breaks the control, as its old
// one did, is the organization's: nothing new is let through.
func TestJudgeOrganizationKeepsWhatWasBroken(t *testing.T) {
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	outside := policyset.Policy{ID: "p-out", Name: "ops signs to A alone", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && eth.tx.to == '0xaa'"}
	managed := policyset.Policy{ID: "p-pay", Name: "payroll", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && eth.tx.to == '0xbb'", Consensus: "approvers.count() >= 2"}
	widened := managed
	widened.Consensus = ""
	o := NewOrg([]policyset.Policy{outside, managed}, nil)
	newly := o.CheckControls(Change{Before: &managed, After: &widened}, controls)
	if len(newly) != 1 || txTo(newly[0].Row.Request) != "0xbb" {
		t.Fatalf("the widened payroll newly breaks the control, to 0xbb: %+v", newly)
	}
	got := o.JudgeOrganization(controls, nil)
	if len(got) != 1 || len(got[0].TakingPart) != 1 || got[0].TakingPart[0].ID != "p-out" {
		t.Fatalf("the organization's judgment names the outside grant alone: %+v", got)
	}

	renamed := outside
	renamed.Condition += " && eth.tx.value <= 10"
	o = NewOrg([]policyset.Policy{outside}, nil)
	if newly := o.CheckControls(Change{Before: &outside, After: &renamed}, controls); len(newly) != 0 {
		t.Fatalf("narrowing a grant lets nothing new through: %+v", newly)
	}
	if got := o.JudgeOrganization(controls, nil); len(got) != 1 || got[0].TakingPart[0].Condition != renamed.Condition {
		t.Errorf("the narrowed grant still breaks the control, in its new version: %+v", got)
	}
}

// TestJudgeOrganizationAfterReviewedRemovals: the removals are reviewed
// (counted as deletes) before the organization is judged; the judgment
// still says that they mend the control.
func TestJudgeOrganizationAfterReviewedRemovals(t *testing.T) {
	ops := policyset.Policy{ID: "p-ops", Name: "ops signs alone", Effect: client.EffectAllow, Condition: "activity.type == '" + signTx + "'"}
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	o := NewOrg([]policyset.Policy{ops}, nil)
	o.CheckControls(Change{Before: &ops}, controls)
	if got := o.JudgeOrganization(controls, []string{"p-ops"}); len(got) != 1 || !got[0].Mended {
		t.Errorf("the reviewed removal mends the control: %+v", got)
	}
}

// TestJudgeOrganizationReadsRefusedTexts: a deny whose text the policy
// language refuses errs, by the engine's reading, for every request: it
// guards nothing, so the allow beside it breaks the control, and the
// judgment says so rather than trusting the deny.
func TestJudgeOrganizationReadsRefusedTexts(t *testing.T) {
	ps := []policyset.Policy{
		{ID: "p-ops", Name: "ops signs alone", Effect: client.EffectAllow, Condition: "activity.type == '" + signTx + "'"},
		{ID: "p-bad", Name: "nobody signs (refused)", Effect: client.EffectDeny, Condition: "activity.type == '" + signTx + "' && 1 == 'a'"},
	}
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	got := NewOrg(ps, nil).JudgeOrganization(controls, nil)
	if len(got) != 1 || got[0].NotProved != "" || len(got[0].TakingPart) != 1 || got[0].TakingPart[0].ID != "p-ops" {
		t.Fatalf("the refused deny guards nothing: want one breach by ops signs alone, got %+v", got)
	}
	if d := policyset.Decide(ps, got[0].Row.Request); d.Verdict != client.OutcomeAllow {
		t.Errorf("the witness should be allowed by the engine: %s", d.Verdict)
	}
}

// txTo is the destination of a witness's Ethereum transaction.
func txTo(r policyset.Request) any {
	tx, _ := r.Keyword("eth.tx")
	m, _ := tx.(map[string]any)
	return m["to"]
}
