package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The lockout guard runs in ModifyPlan: were its signature to drift from
// the framework's, the method would silently stop being called.
var _ resource.ResourceWithModifyPlan = &policyResource{}

// ModifyPlan has the lockout guard check the planned change: a plan that
// would leave Terraform unable to change policies fails here, on this
// resource. Terraform plans the change again during the apply, with its
// values known, and the apply's guard checks it then too.
func (r *policyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.pd == nil || r.pd.guard == nil {
		return
	}
	if change, ok := plannedChangeOf(ctx, req, &resp.Diagnostics); ok {
		r.pd.guard.check(ctx, change, &resp.Diagnostics)
	}
}

// plannedChangeOf is what a plan does to a policy, for the lockout guard;
// false when it changes nothing the decision reads.
func plannedChangeOf(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) (plannedPolicyChange, bool) {
	var plan, state *policyModel
	if !req.Plan.Raw.IsNull() {
		plan = &policyModel{}
		diags.Append(req.Plan.Get(ctx, plan)...)
	}
	if !req.State.Raw.IsNull() {
		state = &policyModel{}
		diags.Append(req.State.Get(ctx, state)...)
	}
	switch {
	case diags.HasError() || (plan == nil && state == nil):
		return plannedPolicyChange{}, false
	case plan == nil:
		return plannedPolicyChange{id: state.ID.ValueString(), what: fmt.Sprintf("deleting policy %q (%s)", state.Name.ValueString(),
			state.ID.ValueString())}, true
	case state != nil && plan.Name.Equal(state.Name) && plan.Effect.Equal(state.Effect) && plan.Condition.Equal(state.Condition) &&
		plan.Consensus.Equal(state.Consensus) && plan.Time.Equal(state.Time):
		return plannedPolicyChange{}, false // notes or timeouts only
	}
	after := plan.decided()
	c := plannedPolicyChange{after: &after, what: fmt.Sprintf("creating policy %q", after.Name),
		unknown: plan.Effect.IsUnknown() || plan.Condition.IsUnknown() || plan.Consensus.IsUnknown() || plan.Time.IsUnknown()}
	if plan.Name.IsUnknown() {
		c.what = "creating a policy whose name is known after apply"
	}
	if state != nil {
		c.id = state.ID.ValueString()
		c.what = fmt.Sprintf("updating policy %q (%s)", state.Name.ValueString(), c.id)
	}
	return c, true
}

// decided is what a decision reads of the policy m describes (a null
// expression is absent, as the service stores it).
func (m *policyModel) decided() policyset.Policy {
	return policyset.Policy{Name: m.Name.ValueString(), Effect: m.Effect.ValueString(), Condition: m.Condition.ValueString(),
		Consensus: m.Consensus.ValueString(), Time: m.Time.ValueString()}
}

// guardApplied tells the lockout guard, if any, that the apply made c.
func (r *policyResource) guardApplied(c plannedPolicyChange) {
	if r.pd.guard != nil {
		r.pd.guard.applied(c)
	}
}
