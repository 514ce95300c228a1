package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The lockout guard runs in ModifyPlan: were its signature to drift from
// the framework's, the method would silently stop being called.
var _ resource.ResourceWithModifyPlan = &policyResource{}

// ModifyPlan judges the planned change: the lockout guard fails a plan
// that would leave Terraform unable to change policies, and the access
// review (resource_policy_access_review.go) reports what the change does
// to who can do what and holds it to the provider's controls. Terraform
// plans the change again during the apply, with its values known, and
// both judge it then too.
func (r *policyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.pd == nil {
		return
	}
	plan, state, ok := plannedModels(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	if r.pd.guard != nil {
		if change, ok := plannedChangeOf(plan, state); ok {
			addFindings(&resp.Diagnostics, r.pd.guard.Check(ctx, change))
		}
	}
	if state != nil {
		r.pd.planned.record(state.ID.ValueString(), fateOf(plan, resp))
	}
	if r.pd.review != nil {
		r.pd.review.check(ctx, plan, state, &resp.Diagnostics)
		// The organization is judged at the first policy planned with a
		// value: a destroy plan judges nothing.
		if plan != nil {
			r.pd.review.judgeAtFirstPolicy(ctx, &resp.Diagnostics)
		}
	}
}

// fateOf is what the plan does to a policy that exists.
func fateOf(plan *policyModel, resp *resource.ModifyPlanResponse) plannedFate {
	switch {
	case plan == nil:
		return fateDeleted
	case len(resp.RequiresReplace) > 0:
		return fateReplaced
	}
	return fateKept
}

// plannedModels reads the planned and the prior policy: plan is nil for a
// delete, state nil for a create; false when there is nothing to judge.
func plannedModels(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) (plan, state *policyModel, ok bool) {
	if !req.Plan.Raw.IsNull() {
		plan = &policyModel{}
		diags.Append(req.Plan.Get(ctx, plan)...)
	}
	if !req.State.Raw.IsNull() {
		state = &policyModel{}
		diags.Append(req.State.Get(ctx, state)...)
	}
	return plan, state, !diags.HasError() && (plan != nil || state != nil)
}

// plannedChangeOf is what a plan does to a policy, for the lockout guard;
// false when it changes nothing the decision reads.
func plannedChangeOf(plan, state *policyModel) (lockout.Change, bool) {
	switch {
	case plan == nil:
		return lockout.Change{ID: state.ID.ValueString(), What: fmt.Sprintf("deleting policy %q (%s)", state.Name.ValueString(),
			state.ID.ValueString())}, true
	case state != nil && plan.Name.Equal(state.Name) && sameDecided(plan, state):
		return lockout.Change{}, false // notes or timeouts only
	}
	after := plan.decided()
	c := lockout.Change{After: &after, What: fmt.Sprintf("creating policy %q", after.Name), Unknown: plan.decidedUnknown()}
	if plan.Name.IsUnknown() {
		c.What = "creating a policy whose name is known after apply"
	}
	if state != nil {
		c.ID = state.ID.ValueString()
		c.What = fmt.Sprintf("updating policy %q (%s)", state.Name.ValueString(), c.ID)
	}
	return c, true
}

// sameDecided reports whether a and b agree on all that a decision reads:
// effect, condition, consensus and time.
func sameDecided(a, b *policyModel) bool {
	return a.Effect.Equal(b.Effect) && a.Condition.Equal(b.Condition) && a.Consensus.Equal(b.Consensus) && a.Time.Equal(b.Time)
}

// decidedUnknown reports whether some part of m that a decision reads is
// not known until apply.
func (m *policyModel) decidedUnknown() bool {
	return m.Effect.IsUnknown() || m.Condition.IsUnknown() || m.Consensus.IsUnknown() || m.Time.IsUnknown()
}

// decided is what a decision reads of the policy m describes (a null
// expression is absent, as the service stores it).
func (m *policyModel) decided() policyset.Policy {
	return policyset.Policy{Name: m.Name.ValueString(), Effect: m.Effect.ValueString(), Condition: m.Condition.ValueString(),
		Consensus: m.Consensus.ValueString(), Time: m.Time.ValueString()}
}

// guardApplied tells the lockout guard, if any, that the apply made c.
func (r *policyResource) guardApplied(c lockout.Change) {
	if r.pd.guard != nil {
		r.pd.guard.Applied(c)
	}
}
