package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/replay"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// The access review tells the reviewer of a plan what each custody_policy
// change does to who can do what, instead of leaving it to a reading of
// the expressions: a warning `Access change: <name>` with the decisions
// the change moves, `Policy finding: <name>` for what is wrong with the
// changed policy itself, and an error `Control broken: <name>` when the
// change lets through what a declared control forbids (and, once per
// command, when the organization as the plan leaves it does:
// access_review_organization.go).
//
// Before is the organization as the command's one list_policies found it
// (managed and unmanaged policies), after is the same with this one change,
// so the report of a change does not depend on the order Terraform plans
// in. The controls are judged in the most permissive state the apply can
// pass through (review.Org.CheckControls). Only a change of effect,
// condition, consensus or time is reviewed: a rename or a notes change
// moves no decision and says nothing.

// accessReviewRows is how many rows an Access change warning shows; the
// rest are counted ("and N more").
const accessReviewRows = 10

// reviewReadWait bounds the review's read of the organization's policies
// when it is the command's first: a plan against a service that is down
// says "Access review not made" after it, rather than waiting through
// the transport's retries.
const reviewReadWait = 5 * time.Second

// controlBreachRows is how many requests a Control broken diagnostic shows.
const controlBreachRows = 3

// accessReview is the review of one command's policy changes.
type accessReview struct {
	pd *providerData
	// org is the organization as the command found it, built at the first
	// change reviewed and kept once it succeeds; a failed read is read
	// again by the next change (see percommand.FirstSuccess).
	org *percommand.FirstSuccess[*review.Org]

	// gaveUp is a read that failed after the transport's own retries,
	// while its caller's context was fine: the service cannot be reached
	// (an offline plan with skip_credentials_validation, say). It is kept
	// for the command, so that a plan of N policies does not wait through
	// the retries N times for N identical warnings' sake. Only
	// readOrganization touches it, one caller at a time.
	gaveUp error

	// judged is the organization judgment at the first policy planned
	// (access_review_organization.go), made once per command.
	mu     sync.Mutex
	judged bool

	// replay is the command's history of recent activities, read at the
	// first change reviewed when the replay is on
	// (access_review_replay.go).
	replay replayHistory
}

func newAccessReview(pd *providerData) *accessReview {
	return &accessReview{pd: pd, org: percommand.NewFirstSuccess[*review.Org]()}
}

// organization is the command's review.Org, from the command's one
// list_policies (shared with refresh and the lockout guard).
func (a *accessReview) organization(ctx context.Context) (*review.Org, error) {
	return a.org.Get(ctx, a.readOrganization)
}

// readOrganization builds the review.Org from the command's one list. It
// runs for one caller at a time (percommand.FirstSuccess), so the callers that waited
// behind a read that gave up find gaveUp set.
func (a *accessReview) readOrganization(ctx context.Context) (*review.Org, error) {
	if a.gaveUp != nil {
		return nil, a.gaveUp
	}
	// A reviewer's aid must not hold a plan up: against a service that is
	// down, the transport would retry for minutes. The wait is bounded,
	// and a read that ran out while the plan's own context is fine is kept
	// as the command's answer (gaveUp).
	readCtx, cancel := context.WithTimeout(ctx, reviewReadWait)
	defer cancel()
	list, err := cachedPolicies(readCtx, a.pd)
	if err != nil {
		if ctx.Err() == nil {
			if readCtx.Err() != nil {
				err = fmt.Errorf("no answer within %s: %w", reviewReadWait, err)
			}
			a.gaveUp = err
		}
		return nil, err
	}
	policies := make([]policyset.Policy, len(list.all))
	for i := range list.all {
		policies[i] = policyset.FromClient(&list.all[i])
	}
	return review.NewOrg(policies, nil), nil
}

// rootUserIDs are the organization's root users, from the command's one
// get_organization_configs (providerData.RootQuorum, shared with the
// lockout guard), read when a policy names users by id: no request the review shows has one as its
// requester or approver, since the root quorum, not the policies, governs
// what they approve. A quorum that cannot be read leaves the review
// without them (a root user a policy names may then appear), and says so
// in the log.
func (a *accessReview) rootUserIDs(ctx context.Context) []string {
	q, err := a.pd.RootQuorum(ctx)
	if err != nil || q == nil {
		tflog.Warn(ctx, "access review: could not read the root quorum; root users are not told apart", map[string]any{"error": fmt.Sprint(err)})
		return nil
	}
	return q.UserIDs
}

// keyTagNames are the organization's private key tags, id to name, from
// the command's one list_private_key_tags (the list the tag resources
// read too), read only when a report names a tag. A list that cannot be
// read leaves the ids as they are, and says so in the log.
func (a *accessReview) keyTagNames(ctx context.Context) map[string]string {
	tags, err := cachedPrivateKeyTags(ctx, a.pd)
	if err != nil {
		tflog.Warn(ctx, "access review: could not read the private key tags; they are shown by id", map[string]any{"error": fmt.Sprint(err)})
		return nil
	}
	names := make(map[string]string, len(tags.PrivateKeyTags))
	for _, t := range tags.PrivateKeyTags {
		names[t.TagID] = t.TagName
	}
	return names
}

// check reviews one planned change: plan is nil for a delete, state nil
// for a create.
func (a *accessReview) check(ctx context.Context, plan, state *policyModel, diags *diag.Diagnostics) {
	if plan != nil && state != nil && sameDecided(plan, state) {
		return // a rename, notes or timeouts: no decision moves
	}
	name, what := reviewedName(plan, state)
	if plan != nil && plan.decidedUnknown() {
		// Terraform plans the change again during the apply, with its
		// values, and the review runs then. Without controls there is
		// nothing the apply could refuse, so nothing is said now.
		tflog.Debug(ctx, "access review: a planned policy change is not known until apply; the apply reviews it", map[string]any{"change": what})
		if len(a.pd.controls) > 0 {
			diags.AddWarning("Controls checked at apply: "+name, "The content of "+what+" is known only after apply, so the "+
				"provider's controls are checked during the apply, before the change is submitted.")
		}
		return
	}
	a.review(ctx, reviewChange(plan, state), name, what, diags)
}

// removal reviews the removal of an organization's policy that no
// custody_policy manages (custody_policies_exclusive's), like a delete.
func (a *accessReview) removal(ctx context.Context, p policyset.Policy, diags *diag.Diagnostics) {
	a.review(ctx, review.Change{Before: &p}, p.Name+" (outside this configuration)",
		fmt.Sprintf("removing policy %q (%s), outside this configuration", p.Name, p.ID), diags)
}

// review reports what c does (name and what say which change it is, for
// the messages) and holds it to the controls.
func (a *accessReview) review(ctx context.Context, c review.Change, name, what string, diags *diag.Diagnostics) {
	org, err := a.organization(ctx)
	if err != nil {
		diags.AddWarning("Access review not made", "The provider could not read the organization's policies to review "+what+": "+err.Error())
		// A control is a promise: one that cannot be judged fails the
		// plan, unless it opted into a warning.
		for _, ctl := range a.pd.controls {
			controlNotProved(ctl, what, "the organization's policies could not be read: "+err.Error(), diags)
		}
		return
	}
	// The root users' ids matter only where a policy names users by id:
	// unnamed users are alike, so the quorum is read only then.
	if org.NeedsRootIDs(c) {
		org.SetRootIDs(a.rootUserIDs(ctx))
	}
	var replayed *replay.Result
	if rep := org.Report(c); !rep.Empty() {
		if rep.NamesKeyTags() {
			rep = rep.WithTagNames(a.keyTagNames(ctx))
		}
		detail := rep.Detail(accessReviewRows)
		var said string
		if said, replayed = a.replayed(ctx, org, c, rep.Rows); said != "" {
			detail += "\n\n" + said
		}
		diags.AddWarning("Access change: "+name, detail)
	}
	// One warning for all findings of a policy: Terraform's human output
	// shows only the first of several warnings with the same summary.
	found := org.Findings(c)
	unused := a.unused(c, replayed)
	if len(found) > 0 || unused != "" {
		parts := make([]string, 0, len(found)+1)
		if unused != "" {
			parts = append(parts, unused)
		}
		for _, f := range found {
			if f.Deny && !a.pd.neverApplyingDenyWarns {
				// A deny that never applies denies nothing: a guardrail
				// that is not there.
				diags.AddError("Policy finding: "+name, f.Kind+":\n"+f.Detail+"\n\nA deny that never applies guards nothing. Fix its "+
					"expressions, or set the provider's never_applying_deny = \"warning\" to plan it anyway.")
				continue
			}
			parts = append(parts, f.Kind+":\n"+f.Detail)
		}
		if len(parts) > 0 {
			diags.AddWarning("Policy finding: "+name, strings.Join(parts, "\n\n"))
		}
	}
	if len(a.pd.controls) > 0 {
		reportBreaches(org.CheckControls(c, a.pd.controls), what, diags)
	}
}

// reviewChange is the change for the review: the prior version with its
// id (an update or a delete), the planned one (a create or an update).
func reviewChange(plan, state *policyModel) review.Change {
	var c review.Change
	if state != nil {
		before := state.decided()
		before.ID = state.ID.ValueString()
		c.Before = &before
	}
	if plan != nil {
		after := plan.decided()
		if state != nil {
			after.ID = state.ID.ValueString()
		}
		c.After = &after
	}
	return c
}

// reviewedName is the policy's name for a summary (the planned one; the
// prior one for a delete or while the planned one is unknown) and the
// change in words, for messages.
func reviewedName(plan, state *policyModel) (name, what string) {
	switch {
	case plan == nil:
		return state.Name.ValueString(), fmt.Sprintf("deleting policy %q", state.Name.ValueString())
	case plan.Name.IsUnknown() && state != nil:
		return state.Name.ValueString(), fmt.Sprintf("updating policy %q", state.Name.ValueString())
	case plan.Name.IsUnknown():
		return "(known after apply)", "creating a policy whose name is known after apply"
	case state != nil:
		return plan.Name.ValueString(), fmt.Sprintf("updating policy %q", state.Name.ValueString())
	}
	return plan.Name.ValueString(), fmt.Sprintf("creating policy %q", plan.Name.ValueString())
}

// reportBreaches reports the breaches one change newly makes, one error
// per control (errors are never merged by Terraform, but one per control
// reads better), or the control not proved.
func reportBreaches(breaches []review.Breach, what string, diags *diag.Diagnostics) {
	var order []string
	groups := map[string][]review.Breach{}
	for _, b := range breaches {
		if b.NotProved != "" {
			controlNotProved(b.Control, what, b.Row.Type+": "+b.NotProved, diags)
			continue
		}
		if _, seen := groups[b.Control.Name]; !seen {
			order = append(order, b.Control.Name)
		}
		groups[b.Control.Name] = append(groups[b.Control.Name], b)
	}
	for _, name := range order {
		bs := groups[name]
		ctl := bs[0].Control
		var text strings.Builder
		fmt.Fprintf(&text, "After %s, with the plan's other policy changes counted so far (each in whichever version allows "+
			"more, since the apply may make them in any order), the control %q (%s) no longer holds:\n", what, ctl.Name, controlRule(ctl))
		for i, b := range bs {
			if i == controlBreachRows {
				fmt.Fprintf(&text, "  and %d more\n", len(bs)-i)
				break
			}
			text.WriteString(b.Row.Lines())
		}
		text.WriteString("\nEach example is a request that provider::custody::policy_decision accepts as is. Change the policy, " +
			"or the control in the provider's controls if the change is intended.")
		diags.AddError("Control broken: "+ctl.Name, text.String())
	}
}

// controlNotProved fails the plan for a control the analysis could not
// prove to hold, naming what stopped it; a control that opted into
// warnings warns instead.
func controlNotProved(ctl review.Control, what, why string, diags *diag.Diagnostics) {
	detail := fmt.Sprintf("The control %q (%s) could not be proved to hold after %s: %s.\n\nA control passes only when it is "+
		"proved for every request. Simplify the policy, or set on_not_proved = \"warning\" on the control to plan anyway.",
		ctl.Name, controlRule(ctl), what, strings.TrimSuffix(why, "."))
	if ctl.WarnNotProved {
		diags.AddWarning("Control not proved: "+ctl.Name, detail)
		return
	}
	diags.AddError("Control not proved: "+ctl.Name, detail)
}

// controlRule says what a control allows, in words.
func controlRule(c review.Control) string {
	rule := "no one alone"
	if c.AtMost == review.AtMostDenied {
		rule = "denied to every non-root user"
	}
	return "at most " + c.AtMost + " on " + strings.Join(c.ActivityTypes, ", ") + ": " + rule
}
