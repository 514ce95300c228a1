package provider

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Terraform plans a changed resource again during the apply and refuses a
// plan whose known values moved. The removals are therefore planned from
// what stays the same between the two: the refreshed state (policy_ids is
// every id the refresh found) and its private data (what each policy
// said), never from the live list or from what other resources planned.
// A policy deleted or replaced by its own custody_policy meanwhile, or
// one deleted by someone else, is then already gone at apply and counts
// as removed; one made after the refresh is not in the state and is never
// removed unseen.

// foundKey is the private data key of what the refresh found.
const foundKey = "found"

// foundPolicy is what a removal shows of a policy, as the refresh found it.
type foundPolicy struct {
	Name      string `json:"n"`
	Effect    string `json:"e"`
	Condition string `json:"c,omitempty"`
	Consensus string `json:"s,omitempty"`
}

// privateSetter is the private data of a Read or a plan.
type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// keepFound stores what the refresh found, for the plan.
func keepFound(ctx context.Context, list *policyList, private privateSetter, diags *diag.Diagnostics) {
	found := make(map[string]foundPolicy, len(list.all))
	for _, p := range list.all {
		found[p.PolicyID] = foundPolicy{Name: p.PolicyName, Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus}
	}
	b, err := json.Marshal(found)
	if err != nil {
		diags.AddError("Error keeping the refreshed policies", err.Error())
		return
	}
	diags.Append(private.SetKey(ctx, foundKey, b)...)
}

// foundBefore is what the refresh found: every id it read, and what each
// policy said; ok is false when there is no state (a create), which plans
// from the live list.
func foundBefore(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) (ids []string, found map[string]foundPolicy, ok bool) {
	if req.State.Raw.IsNull() {
		return nil, nil, false
	}
	var set types.Set
	if diags.Append(req.State.GetAttribute(ctx, path.Root("policy_ids"), &set)...); diags.HasError() {
		return nil, nil, false
	}
	for _, v := range set.Elements() {
		if s, isStr := v.(types.String); isStr && !s.IsUnknown() && !s.IsNull() {
			ids = append(ids, s.ValueString())
		}
	}
	found = map[string]foundPolicy{}
	if b, d := req.Private.GetKey(ctx, foundKey); !d.HasError() && len(b) > 0 {
		_ = json.Unmarshal(b, &found) // an unreadable record only costs the removals their words
	}
	slices.Sort(ids)
	return ids, found, true
}

// foundOf is the live list as the refresh would store it, for a create.
func foundOf(list *policyList) (ids []string, found map[string]foundPolicy) {
	found = make(map[string]foundPolicy, len(list.all))
	for _, p := range list.all {
		ids = append(ids, p.PolicyID)
		found[p.PolicyID] = foundPolicy{Name: p.PolicyName, Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus}
	}
	slices.Sort(ids)
	return ids, found
}

// removalsFound is the removals attribute for ids, with what the refresh
// found of each.
func removalsFound(ids []string, found map[string]foundPolicy) types.List {
	elems := make([]attr.Value, 0, len(ids))
	for _, id := range ids {
		f := found[id]
		elems = append(elems, types.ObjectValueMust(policyRemovalType.AttrTypes, map[string]attr.Value{
			"id": types.StringValue(id), "name": optionalString(f.Name), "effect": optionalString(f.Effect),
			"condition": optionalString(f.Condition), "consensus": optionalString(f.Consensus),
		}))
	}
	return types.ListValueMust(policyRemovalType, elems)
}
