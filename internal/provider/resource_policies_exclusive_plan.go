package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// ModifyPlan plans the removals: every policy of the organization that
// policy_ids does not list, named in removals, each reviewed like a
// delete (its access change, the controls it newly breaks, the lockout
// guard), and then the organization as the apply leaves it held to the
// controls. Terraform calls it after every custody_policy that
// policy_ids references, so the plan's changes to them are counted.
func (r *policiesExclusiveResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.pd == nil || req.Plan.Raw.IsNull() {
		return // a destroy ends the claim and removes nothing
	}
	diags := &resp.Diagnostics
	var plan policiesExclusiveModel
	if diags.Append(req.Plan.Get(ctx, &plan)...); diags.HasError() {
		return
	}
	// A replaced instance is planned twice (claimListing).
	r.pd.claims.claimListing("policies", claimedIDs(plan.PolicyIDs), req.State.Raw.IsNull(), "custody_policies_exclusive", diags)
	keep, whole := configuredIDs(plan.PolicyIDs)
	list, err := cachedPolicies(ctx, r.pd)
	if err != nil {
		// No removal is planned from a list that was not read whole.
		addAPIError(diags, "Error reading the organization's policies", client.QueryListPolicies, "custody_policies_exclusive", err)
		return
	}
	all := make([]string, len(list.all))
	for i, p := range list.all {
		all[i] = p.PolicyID
	}
	reportMissing("policy_ids", "policy", missingIDs(all, keep), diags)
	if diags.HasError() {
		return
	}
	plan.ID = types.StringValue(r.pd.client.OrganizationID())
	if !whole {
		// The set is known only at apply: so are the removals, and the
		// apply judges them.
		plan.Removals = types.ListUnknown(policyRemovalType)
		diags.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	// What the refresh found (resource_policies_exclusive_found.go); a
	// create, with no state, plans from the live list.
	ids, found, refreshed := foundBefore(ctx, req, diags)
	if !refreshed {
		ids, found = foundOf(list)
	}
	outside := outsideIDs(ids, keep)
	if !hasUnknownElement(plan.PolicyIDs) {
		r.keptButNotListed(all, keep, diags)
	}
	plan.Removals = removalsFound(outside, found)
	if len(outside) == 0 {
		// Nothing to remove: removals keep what the state holds (the last
		// apply's, until a refresh reads the organization again), so that
		// a plan without refresh after an apply that removed is empty too.
		plan.Removals = priorRemovals(ctx, req, plan.Removals)
	}
	diags.Append(resp.Plan.Set(ctx, &plan)...)

	removed := make([]policyset.Policy, 0, len(outside))
	for _, id := range outside {
		if r.pd.planned.fate(id) != 0 {
			continue // a custody_policy of this configuration: it judges its own delete or replacement
		}
		p, live := list.byID[id]
		if !live {
			continue // gone since the refresh: there is nothing to take back
		}
		removed = append(removed, policyset.FromClient(p))
		if r.pd.guard != nil {
			addFindings(diags, listOrImportAdvice(r.pd.guard.Check(ctx, lockout.Change{ID: id, What: removalWhat(p)}), p))
		}
		if r.pd.review != nil {
			r.pd.review.removal(ctx, policyset.FromClient(p), diags)
		}
	}
	if r.pd.review != nil {
		r.pd.review.judgeOrganization(ctx, orgJudgment{exclusive: &policyClaim{removed: removed}}, diags)
	}
}

// keptButNotListed warns of a policy that a custody_policy of this
// configuration keeps and policy_ids does not list: the apply removes it,
// and the next plan makes it again. Terraform plans an unreferenced
// custody_policy in any order with this resource, so the warning is
// given only when it was planned first; the plan itself, a removal, is
// the same in either order.
func (r *policiesExclusiveResource) keptButNotListed(all []string, keep map[string]bool, diags *diag.Diagnostics) {
	for _, id := range slices.Sorted(slices.Values(all)) {
		if !keep[id] && r.pd.planned.fate(id) == fateKept {
			diags.AddAttributeWarning(path.Root("policy_ids"), "Managed policy not listed",
				"The policy "+id+" is managed by a custody_policy of this configuration, but policy_ids does not list it, so "+
					"the apply removes it and the next plan makes it again. Add the resource's id to policy_ids.")
		}
	}
}

// priorRemovals is the state's removals, or none when there is no state.
func priorRemovals(ctx context.Context, req resource.ModifyPlanRequest, none types.List) types.List {
	if req.State.Raw.IsNull() {
		return none
	}
	var prior types.List
	if d := req.State.GetAttribute(ctx, path.Root("removals"), &prior); d.HasError() || prior.IsNull() || prior.IsUnknown() {
		return none
	}
	return prior
}

// hasUnknownElement tells whether a known set holds an element known only
// at apply.
func hasUnknownElement(s types.Set) bool {
	return slices.ContainsFunc(s.Elements(), func(v attr.Value) bool { return v.IsUnknown() })
}
