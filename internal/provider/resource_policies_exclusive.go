package provider

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ importableResource              = &policiesExclusiveResource{}
	_ resource.ResourceWithModifyPlan = &policiesExclusiveResource{}
)

// NewPoliciesExclusiveResource is custody_policies_exclusive: the
// organization's policies declared whole (exclusive.go).
func NewPoliciesExclusiveResource() resource.Resource {
	return &policiesExclusiveResource{resourceBase{typeName: "policies_exclusive", identity: organizationIdentity}}
}

type policiesExclusiveResource struct{ resourceBase }

type policiesExclusiveModel struct {
	ID        types.String `tfsdk:"id"`
	PolicyIDs types.Set    `tfsdk:"policy_ids"`
	Removals  types.List   `tfsdk:"removals"`
	resourceTimeouts
}

// policyRemovalType is an element of removals: the policy as the plan
// found it, so that a reviewer sees what goes, not only its id.
var policyRemovalType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "effect": types.StringType,
	"condition": types.StringType, "consensus": types.StringType,
}}

func (r *policiesExclusiveResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	to := timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true,
		CreateDescription: waitFor(client.OpDeletePolicies), UpdateDescription: waitFor(client.OpDeletePolicies),
	}, "How long create and update wait for the removal's activity, approvals included.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "The organization's policies, declared whole: every policy whose id `policy_ids` does not list is " +
			"drift, planned for removal and removed on apply, like the AWS provider's `aws_iam_role_policies_exclusive`. A " +
			"policy made outside Terraform (through the dashboard or a script) is then seen by every plan: " +
			"`terraform plan -detailed-exitcode` exits 2, and the plan names each policy it removes (`removals`), with its " +
			"access change.\n\n" +
			"Refresh reads the policies from the command's one `list_policies` (shared with every `custody_policy`), so its " +
			"state holds every id the service has. The apply reads the list again, and removes in one `" +
			client.OpDeletePolicies.Type + "` every policy the plan showed that is still outside `policy_ids`; one already " +
			"gone counts as removed. A policy that a `custody_policy` of this configuration deletes or replaces is left to that " +
			"resource. Destroying this resource deletes nothing: it only ends the claim.\n\n" +
			"The lockout guard judges the removals like any other delete: removing the grant that lets Terraform change " +
			"policies is refused at plan, before anything is deleted. The provider's `controls` are judged here on the " +
			"organization as the apply leaves it, with the removals done (see `on_outside_breach`).\n\n" +
			"Declare one per configuration: two would each remove what the other lists. Import with the organization id: " +
			"`terraform import custody_policies_exclusive.all <organization id>`.",
		Attributes: map[string]schema.Attribute{
			"id": idAttribute("The organization id: the collection is the organization's policies. Also the import id."),
			"policy_ids": schema.SetAttribute{
				ElementType: types.StringType,
				Required:    true,
				MarkdownDescription: "The ids of every policy the organization keeps: reference the `custody_policy` resources " +
					"(`[for p in custody_policy.all : p.id]`), and list by literal id those managed elsewhere. An id known " +
					"only at apply (a policy this apply creates) never makes another policy a removal. An id the organization " +
					"does not have is an error.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(notBlank())},
			},
			"removals": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "The policies the plan removes: each policy whose id `policy_ids` does not list, sorted " +
					"by id, with what it says. After an apply, the ones it removed, until a refresh reads the organization " +
					"again; empty after a refresh that finds only the policies listed.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":        computedString("The policy id."),
					"name":      computedString("The policy's name."),
					"effect":    computedString("`EFFECT_ALLOW` or `EFFECT_DENY`."),
					"condition": computedString("The condition expression." + omittedNull),
					"consensus": computedString("The consensus expression." + omittedNull),
				}},
			},
			"timeouts": to,
		},
	}
}

func (r *policiesExclusiveResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.importOrganization(ctx, req, resp)
}

func (r *policiesExclusiveResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	refreshState(ctx, resp, func(m *policiesExclusiveModel, diags *diag.Diagnostics) bool {
		list, err := cachedPolicies(ctx, r.pd)
		if err != nil {
			addAPIError(diags, "Error reading the organization's policies", client.QueryListPolicies, "custody_policies_exclusive", err)
			return false
		}
		ids := make([]attr.Value, len(list.all))
		for i, p := range list.all {
			ids[i] = types.StringValue(p.PolicyID)
		}
		m.PolicyIDs = types.SetValueMust(types.StringType, ids)
		m.Removals = types.ListValueMust(policyRemovalType, []attr.Value{})
		keepFound(ctx, list, resp.Private, diags)
		return true
	})
}

func (r *policiesExclusiveResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.applyPlan(ctx, req.Plan, &resp.State, timeouts.Value.Create, &resp.Diagnostics)
}

func (r *policiesExclusiveResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.applyPlan(ctx, req.Plan, &resp.State, timeouts.Value.Update, &resp.Diagnostics)
}

// applyPlan is Create and Update: the removals, then the plan as the
// state.
func (r *policiesExclusiveResource) applyPlan(ctx context.Context, from tfsdk.Plan, state *tfsdk.State, which timeoutOf, diags *diag.Diagnostics) {
	var plan policiesExclusiveModel
	timeout, ok := r.readTimed(ctx, from, &plan, which, diags)
	if !ok {
		return
	}
	r.apply(ctx, &plan, timeout, diags)
	if !diags.HasError() {
		diags.Append(state.Set(ctx, &plan)...)
	}
}

// Delete ends the claim and deletes nothing.
func (r *policiesExclusiveResource) Delete(ctx context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
	tflog.Info(ctx, "custody_policies_exclusive destroyed: the claim ends, and no policy is deleted")
}

// apply removes what the plan showed and is still outside the set, now
// known: read from a fresh list (a write of this apply forgot the
// command's), each judged by the lockout guard before anything is sent.
func (r *policiesExclusiveResource) apply(ctx context.Context, plan *policiesExclusiveModel, timeout time.Duration, diags *diag.Diagnostics) {
	plan.ID = types.StringValue(r.pd.client.OrganizationID())
	keep, _ := configuredIDs(plan.PolicyIDs)
	list, err := cachedPolicies(ctx, r.pd)
	if err != nil {
		addAPIError(diags, "Error reading the organization's policies", client.QueryListPolicies, "custody_policies_exclusive", err)
		return
	}
	var shown []string // what the plan showed; all outside when it could not say
	if plan.Removals.IsUnknown() {
		ids, found := foundOf(list)
		plan.Removals = removalsFound(outsideIDs(ids, keep), found)
	}
	for _, v := range plan.Removals.Elements() {
		if o, ok := v.(types.Object); ok {
			if id, ok := o.Attributes()["id"].(types.String); ok {
				shown = append(shown, id.ValueString())
			}
		}
	}
	var ids []string
	for _, id := range shown {
		if keep[id] {
			continue // listed now (an id known only at apply)
		}
		if p, ok := list.byID[id]; ok && r.pd.guard != nil {
			ok, found := r.pd.guard.AllowDelete(ctx, id, removalWhat(p))
			addFindings(diags, listOrImportAdvice(found, p))
			if !ok {
				continue
			}
		}
		ids = append(ids, id)
	}
	if diags.HasError() || len(ids) == 0 {
		return
	}
	present := func(ctx context.Context) (map[string]bool, error) {
		list, err := cachedPolicies(ctx, r.pd)
		if err != nil {
			return nil, err
		}
		have := make(map[string]bool, len(list.all))
		for _, p := range list.all {
			have[p.PolicyID] = true
		}
		return have, nil
	}
	remove := func(ctx context.Context, ids []string) error {
		_, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).DeletePolicies, client.DeletePoliciesParams{PolicyIDs: ids})
		r.pd.lists.Forget(policiesListKey)
		return err
	}
	removed, err := removeAll(ctx, ids, present, remove)
	for _, id := range removed {
		if r.pd.guard != nil {
			r.pd.guard.Applied(lockout.Change{ID: id})
		}
	}
	tflog.Info(ctx, "removed policies outside custody_policies_exclusive", map[string]any{"policy_ids": removed})
	if err != nil {
		addAPIError(diags, "Error removing policies outside custody_policies_exclusive", client.OpDeletePolicies.Name,
			"policies "+strings.Join(ids, ", "), err)
	}
}

// removalWhat is a removal in words, for the lockout guard's messages.
func removalWhat(p *client.Policy) string {
	return "removing policy \"" + p.PolicyName + "\" (" + p.PolicyID + "), outside custody_policies_exclusive's policy_ids"
}

// listOrImportAdvice adds to the guard's refusal of a removal how to keep
// the grant: a policy outside the configuration is removed because it is
// not listed.
func listOrImportAdvice(found []lockout.Finding, p *client.Policy) []lockout.Finding {
	out := slices.Clone(found)
	for i := range out {
		if out[i].Severity == lockout.Error {
			out[i].Detail += "\n\nThe policy \"" + p.PolicyName + "\" (" + p.PolicyID + ") is outside this configuration and not in " +
				"custody_policies_exclusive's policy_ids, so the plan removes it. Keep the grant: list \"" + p.PolicyID +
				"\" in policy_ids, or import it as a custody_policy (an import block with id = \"" + p.PolicyID +
				"\") and reference its id."
		}
	}
	return out
}
