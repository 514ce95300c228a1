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
// grant back mends the organization as the plan leaves it; one that
// makes a breach shows in it.
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
	o.CheckControls(Change{After: &ops}, controls)
	if got := o.JudgeOrganization(controls, nil); len(got) != 1 || got[0].TakingPart[0].Name != "ops signs alone" {
		t.Errorf("a created grant breaks the organization as the plan leaves it: %+v", got)
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
