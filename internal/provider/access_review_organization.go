package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// A control is a property of the organization: besides what a planned
// change newly lets through, every plan holds the organization as it
// leaves it to the controls, whoever made the policies that break them
// (review.Org.JudgeOrganization). No call comes at the end of a plan, so
// the judgment is made where the plan is known best:
//
//   - by custody_policies_exclusive, whose ModifyPlan Terraform calls
//     after every custody_policy it lists, with its removals counted as
//     done;
//   - otherwise at the first custody_policy planned, on the organization
//     as found with the changes planned so far (its own included).
//
// Neither runs in a destroy plan (a null plan), a -refresh-only plan or a
// saved plan's apply, where Terraform plans no unchanged instance again.

// orgJudgment is where the organization is judged, for the messages.
type orgJudgment struct {
	// exclusive is the claim of custody_policies_exclusive, nil at a
	// policy: the ids it lists, and the policies it removes.
	exclusive *policyClaim
}

// policyClaim is what custody_policies_exclusive plans: the policies it
// removes (every one it does not list).
type policyClaim struct {
	removed []policyset.Policy
}

// judgeAtFirstPolicy judges the organization once per command, at the
// first custody_policy planned with a value (not a destroy).
func (a *accessReview) judgeAtFirstPolicy(ctx context.Context, diags *diag.Diagnostics) {
	a.mu.Lock()
	first := !a.judged
	a.judged = true
	a.mu.Unlock()
	if first {
		a.judgeOrganization(ctx, orgJudgment{}, diags)
	}
}

// judgeOrganization holds the organization, as the plan leaves it, to the
// provider's controls.
func (a *accessReview) judgeOrganization(ctx context.Context, where orgJudgment, diags *diag.Diagnostics) {
	if len(a.pd.controls) == 0 {
		return
	}
	org, err := a.organization(ctx)
	if err != nil {
		for _, ctl := range a.pd.controls {
			// The policy's own change, judged just before, may have said
			// so already: the same read failed for both.
			if !saidNotProved(ctl, *diags) {
				controlNotProved(ctl, "this plan", "the organization's policies could not be read: "+err.Error(), diags)
			}
		}
		return
	}
	var removed []string
	if where.exclusive != nil {
		for _, p := range where.exclusive.removed {
			removed = append(removed, p.ID)
		}
	}
	if org.NeedsRootIDs(review.Change{}) {
		org.SetRootIDs(a.rootUserIDs(ctx))
	}
	for _, b := range org.JudgeOrganization(a.pd.controls, removed) {
		switch {
		case b.NotProved != "":
			controlNotProved(b.Control, "this plan", b.Row.Type+": "+b.NotProved, diags)
		case b.Mended:
			diags.AddWarning("Control broken outside this configuration: "+b.Control.Name, a.mendedText(b))
		default:
			text := a.brokenText(b, where)
			// The exclusive resource judges the organization as its
			// removals leave it: what still breaks the control is listed or
			// managed here, so on_outside_breach does not excuse it.
			if b.Control.WarnOutsideBreach && where.exclusive == nil {
				diags.AddWarning("Control broken: "+b.Control.Name, text+"\n\nThe control's on_outside_breach = \"warning\" lets the plan "+
					"go on. Where custody_policies_exclusive declares the policies whole, its plan removes those outside it and judges the "+
					"control again.")
				continue
			}
			diags.AddError("Control broken: "+b.Control.Name, text)
		}
	}
}

// brokenText says what breaks the control, who takes part, and how to fix
// it.
func (a *accessReview) brokenText(b review.OrgBreach, where orgJudgment) string {
	var t strings.Builder
	state := "as this plan leaves them (the changes planned so far counted)"
	if where.exclusive != nil {
		state = fmt.Sprintf("as this plan leaves them, with the %s custody_policies_exclusive removes gone",
			pluralWord(len(where.exclusive.removed), "policy", "policies"))
	}
	fmt.Fprintf(&t, "The organization's policies break the control %q (%s) %s, whoever made them:\n", b.Control.Name,
		controlRule(b.Control), state)
	t.WriteString(breachLines(b.Row))
	t.WriteString("\nPolicies that let this request through:\n")
	for _, p := range b.TakingPart {
		fmt.Fprintf(&t, "  - %s, %s\n", policyNamed(p), a.whose(p, where))
	}
	if where.exclusive != nil {
		t.WriteString("\nEach is listed in custody_policies_exclusive's policy_ids, or is planned by this configuration, so the " +
			"apply keeps it. Change or delete it, or take it out of policy_ids so that the apply removes it.")
	} else {
		t.WriteString("\nTo fix a policy made outside this configuration, declare the organization's policies whole with " +
			"custody_policies_exclusive (it plans the removal of every policy it does not list), or import the policy " +
			"(an import block with its id) and delete it. Change a policy this configuration manages. While adopting an " +
			"organization that already breaks the control, set on_outside_breach = \"warning\" on the control.")
	}
	t.WriteString("\n\nThe example is a request that provider::custody::policy_decision accepts as is.")
	return t.String()
}

// mendedText says which removals mend a control the organization broke.
func (a *accessReview) mendedText(b review.OrgBreach) string {
	var t strings.Builder
	fmt.Fprintf(&t, "The organization's policies broke the control %q (%s) before this plan:\n", b.Control.Name, controlRule(b.Control))
	t.WriteString(breachLines(b.Row))
	t.WriteString("\nPolicies outside this configuration (not in custody_policies_exclusive's policy_ids) that let this " +
		"request through, which the apply removes, mending the control:\n")
	for _, p := range b.TakingPart {
		fmt.Fprintf(&t, "  - %s\n", policyNamed(p))
	}
	return strings.TrimRight(t.String(), "\n")
}

// whose says who manages p, as far as this command knows.
func (a *accessReview) whose(p policyset.Policy, where orgJudgment) string {
	switch {
	case p.ID == "":
		return "created by this plan"
	case a.pd.planned.fate(p.ID) != 0:
		return "managed by this configuration"
	case where.exclusive != nil:
		return "listed in policy_ids, not managed by this configuration"
	}
	return "not planned by this configuration"
}

// breachLines is a breach's witness: its type and outcome, its words and
// the request as HCL.
func breachLines(r review.Row) string {
	return fmt.Sprintf("  %s: %s\n    %s\n    request = %s\n", r.Type, r.Before, r.Words, r.Example)
}

// policyNamed is a policy's name and id, for messages.
func policyNamed(p policyset.Policy) string {
	if p.ID == "" {
		return fmt.Sprintf("%q", p.Name)
	}
	return fmt.Sprintf("%q (%s)", p.Name, p.ID)
}

// pluralWord is n and the noun for n.
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// saidNotProved tells whether diags already hold "Control not proved" for
// ctl.
func saidNotProved(ctl review.Control, diags diag.Diagnostics) bool {
	for _, d := range diags {
		if d.Summary() == "Control not proved: "+ctl.Name {
			return true
		}
	}
	return false
}
