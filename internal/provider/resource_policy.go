package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var _ importableResource = &policyResource{}

// NewPolicyResource is the custody_policy resource.
func NewPolicyResource() resource.Resource {
	return &policyResource{resourceBase{typeName: "policy", identity: idIdentity("policy")}}
}

type policyResource struct{ resourceBase }

type policyModel struct {
	ID        types.String      `tfsdk:"id"`
	Name      types.String      `tfsdk:"name"`
	Effect    types.String      `tfsdk:"effect"`
	Condition types.String      `tfsdk:"condition"`
	Consensus types.String      `tfsdk:"consensus"`
	Time      types.String      `tfsdk:"time"`
	Notes     types.String      `tfsdk:"notes"`
	CreatedAt timetypes.RFC3339 `tfsdk:"created_at"`
	UpdatedAt timetypes.RFC3339 `tfsdk:"updated_at"`
	resourceTimeouts
}

// policyExpressionValidators refuse an empty expression: the service stores
// an absent expression as "", which this resource reads back as null, so a
// configured "" would come back as null and break the plan. Omitting the
// attribute is the one way to say "no expression". They also check the
// expression of field f with policylang, before anything reaches the service.
func policyExpressionValidators(f policylang.Field) []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1), policyExpression(f)}
}

// policyPlanChecked ends the description of an expression attribute.
const policyPlanChecked = " `terraform plan` checks the expression: a mistake the service would refuse or could never " +
	"evaluate is an error that stops the plan, a likely mistake (an undocumented field or value) is a warning. " +
	"An expression not known until apply is checked during the apply, before it is sent."

// policyTimestampWhy ends the descriptions of created_at and updated_at.
const policyTimestampWhy = " Taking the time from the activity saves reading the policy back after every change, " +
	"so that each create or update costs one request."

func (r *policyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A policy of the organization: an `effect` (allow or deny) applied to the activities that match its " +
			"`condition`, possibly requiring the approvals described by `consensus`, during `time`.\n\n" +
			"Create submits `" + client.OpCreatePolicies.Type + "`, an update changes the policy in place with " +
			"`" + client.OpUpdatePolicy.Type + "` (only the changed fields are sent), and destroy submits `" + client.OpDeletePolicies.Type + "`. " +
			"Creates and deletes that Terraform runs at the same time go out together, as one activity and one approval (see " +
			"the provider's `batching`); with batching off each is its own, and destroy submits `" + client.OpDeletePolicy.Type + "`. " +
			"Each of them may need approvals by other users (consensus): the provider then waits up to the `timeouts` (or the " +
			"provider's `approval_timeout`); if the time runs out, the error names the activity and its fingerprint, and the next " +
			"apply adopts that same activity once it is approved instead of submitting it again. An expression the service cannot " +
			"parse fails the activity, and the error shows the activity id and the service's message.\n\n" +
			"Each change costs one request: nothing is read back after it, because the activity's answer says all the provider needs. " +
			"Refresh reads every policy of the organization with one `list_policies` per Terraform command, shared by all the " +
			"`custody_policy` resources and data sources, so a change made outside Terraform shows as an update and a deleted " +
			"policy is planned for creation again. Import with the policy id: `terraform import custody_policy.example <policy id>`.",
		Attributes: map[string]schema.Attribute{
			"id":   idAttribute("The policy id assigned by the service; also the import id."),
			"name": nameAttribute("The policy's name: 1 to 256 bytes, not only spaces. Changed in place."),
			"effect": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "What the policy does to the activities it matches: `EFFECT_ALLOW` or `EFFECT_DENY`. Changed in place.",
				Validators:          []validator.String{oneOf(client.EffectAllow, client.EffectDeny)},
			},
			"condition": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The expression that selects the activities the policy applies to, e.g. " +
					"`activity.resource == 'PRIVATE_KEY'`. Omit it for a policy that applies to every activity; it cannot be " +
					"an empty string. Removing it clears the condition in place." + policyPlanChecked,
				Validators: policyExpressionValidators(policylang.FieldCondition),
			},
			"consensus": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The expression that says which approvals the matched activities need, e.g. " +
					"`approvers.count() >= 2`. Omit it for none; it cannot be an empty string. Removing it clears it in place." +
					policyPlanChecked,
				Validators: policyExpressionValidators(policylang.FieldConsensus),
			},
			"time": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The expression that says when the policy is active, e.g. " +
					"`CronSpan('0 9 * * 1-5', '8h', 'America/New_York')`. Omit it for always; it cannot be " +
					"an empty string. Removing it clears it in place." + policyPlanChecked,
				Validators: policyExpressionValidators(policylang.FieldTime),
			},
			// The service requires notes and stores "" for none. A Default
			// of "" keeps state equal to what the service holds, so an
			// omitted notes, notes = "" and an imported policy without notes
			// all plan nothing, and notes set outside Terraform show as drift.
			"notes": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
				MarkdownDescription: "Free text about the policy. Defaults to the empty string (the service requires notes, and stores \"\" for none).",
			},
			"created_at": timestampAttribute("When the policy was created (RFC 3339, UTC): for a policy this resource created, the time its "+
				"`create_policies` activity completed, as the activity's answer says; for an imported policy, the service's `createdAt`. "+
				"It is set once and never refreshed, because the service's own record may differ slightly from the activity's time "+
				"and a refresh that moved it would report a change nobody made."+policyTimestampWhy,
				stringplanmodifier.UseStateForUnknown()),
			// No UseStateForUnknown: every update moves it, so it is unknown
			// in an update plan and set from the update's activity.
			"updated_at": timestampAttribute("When the policy last changed (RFC 3339, UTC): the time the last activity this resource submitted " +
				"for it completed, as the activity's answer says. When a refresh finds the policy changed outside Terraform, it takes " +
				"the service's `updatedAt`, so the change and its time show together; times compare to the second, so a change within the " +
				"same second as the stored time leaves it as it is." + policyTimestampWhy),
			"timeouts": policyTimeoutsAttribute(ctx),
		},
	}
}

// policyTimeoutsAttribute is the timeouts attribute with its documentation.
func policyTimeoutsAttribute(ctx context.Context) schema.Attribute {
	const wait = "How long to wait for the activity, including approvals by other users (consensus), as a Go duration such as `30m`. " +
		"Defaults to the provider's `approval_timeout`."
	return timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
		CreateDescription: wait, UpdateDescription: wait, DeleteDescription: wait},
		"How long create, update and delete wait for their activity, approvals included.")
}

// flattenContent copies what the service stores of a policy into the
// model, all but the timestamps; timeouts stay as they are.
func (m *policyModel) flattenContent(p *client.Policy) {
	m.ID = types.StringValue(p.PolicyID)
	m.Name = types.StringValue(p.PolicyName)
	m.Effect = types.StringValue(p.Effect)
	m.Condition = optionalString(p.Condition)
	m.Consensus = optionalString(p.Consensus)
	m.Time = optionalString(p.Time)
	m.Notes = types.StringValue(p.Notes)
}

// sameContent reports whether m and o describe the same policy, apart
// from the timestamps and timeouts.
func (m *policyModel) sameContent(o *policyModel) bool {
	return m.ID.Equal(o.ID) && m.Name.Equal(o.Name) && m.Effect.Equal(o.Effect) && m.Condition.Equal(o.Condition) &&
		m.Consensus.Equal(o.Consensus) && m.Time.Equal(o.Time) && m.Notes.Equal(o.Notes)
}

func (r *policyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan policyModel
	timeout, ok := r.readTimed(ctx, req.Plan, &plan, timeouts.Value.Create, &resp.Diagnostics)
	if !ok {
		return
	}
	// Null expressions become "" and are left out by the client (omitempty).
	item := client.PolicyParams{
		PolicyName: plan.Name.ValueString(),
		Effect:     plan.Effect.ValueString(),
		Condition:  plan.Condition.ValueString(),
		Consensus:  plan.Consensus.ValueString(),
		Notes:      plan.Notes.ValueString(),
		Time:       plan.Time.ValueString(),
	}
	act, pos, err := r.pd.runner.Item(ctx, timeout, policyCreates, item)
	r.pd.lists.Forget(policiesListKey)
	object := fmt.Sprintf("policy %q", plan.Name.ValueString())
	id, ok := itemCreated(ctx, act, pos, err, policyCreatedID, req.Plan, resp, "Error creating policy", client.OpCreatePolicies.Name, object)
	if !ok {
		return
	}
	// The service stores the policy exactly as sent, so state is the plan
	// with the new id and the activity's time: no read-back. A policy of an
	// adopted activity that was deleted since is found missing by the next
	// refresh, which plans it for creation again.
	plan.ID = types.StringValue(id)
	plan.CreatedAt = activityTime(act)
	plan.UpdatedAt = plan.CreatedAt
	tflog.Info(ctx, "created policy", map[string]any{"policy_id": id, "activity_id": act.ID, "position": pos})
	made := plan.decided()
	r.guardApplied(lockout.Change{After: &made})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// policyCreatedID is the id of the policy at a position of what a
// create_policies activity made.
var policyCreatedID = client.CreatedID(policyCreates.Shape, func(r client.CreatePoliciesResult) []string { return r.PolicyIDs })

// policyCreates and policyDeletes batch the creates and deletes of
// policies (see submit.Runner.Item).
var (
	policyCreates = submit.Kind{
		Shape: client.ItemShape{Op: client.OpCreatePolicies, ItemsKey: "policies"},
		Submit: submit.Items((*client.Client).CreatePolicies,
			func(items []client.PolicyParams) client.CreatePoliciesParams {
				return client.CreatePoliciesParams{Policies: items}
			}),
	}
	policyDeletes = submit.Kind{
		Shape: client.ItemShape{Op: client.OpDeletePolicies, ItemsKey: "policyIds"},
		Submit: submit.Items((*client.Client).DeletePolicies,
			func(ids []string) client.DeletePoliciesParams { return client.DeletePoliciesParams{PolicyIDs: ids} }),
	}
)

func (r *policyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if !readLostCreate(ctx, r.pd, req, resp, client.OpCreatePolicies, policyCreatedID) {
		return
	}
	refreshState(ctx, resp, func(m *policyModel, diags *diag.Diagnostics) bool {
		state := *m
		id := state.ID.ValueString()
		list, err := cachedPolicies(ctx, r.pd)
		if err != nil {
			addAPIError(diags, "Error reading policy", client.QueryListPolicies, "policy "+id, err)
			return false
		}
		got, found := list.byID[id]
		if !found {
			tflog.Warn(ctx, "policy no longer exists; removing it from state so that it is planned for creation", map[string]any{"policy_id": id})
			return false
		}
		r.pd.planned.record(id, fateRefreshed)
		m.flattenContent(got)
		// The timestamps in state came from activities (see the schema); the
		// service's are taken only where state has none (import) and, for
		// updated_at, when the policy changed outside Terraform.
		created, cerr := renderTimestamp(got.CreatedAt)
		updated, uerr := renderTimestamp(got.UpdatedAt)
		if err := errors.Join(cerr, uerr); err != nil {
			diags.AddError("Error reading policy", fmt.Sprintf("list_policies answered a timestamp of policy %s that the provider "+
				"cannot read (%v); this is always a bug in the provider or the service", id, err))
			return false
		}
		if state.CreatedAt.IsNull() || state.CreatedAt.IsUnknown() {
			m.CreatedAt = created
		}
		if !state.sameContent(m) || state.UpdatedAt.IsNull() || state.UpdatedAt.IsUnknown() {
			m.UpdatedAt = updated
		}
		return true
	})
}

// policyChange returns a pointer to the planned value when it differs from
// state, and nil otherwise; a null plan value becomes "" so that removing
// an expression clears it.
func policyChange(plan, state types.String) *string {
	if plan.Equal(state) {
		return nil
	}
	v := plan.ValueString()
	return &v
}

func (r *policyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	updateFrame(ctx, &r.resourceBase, req, resp, func(plan, state *policyModel, timeout time.Duration, diags *diag.Diagnostics) {
		id := state.ID.ValueString()
		params := client.UpdatePolicyParams{
			PolicyID:        id,
			PolicyName:      policyChange(plan.Name, state.Name),
			PolicyEffect:    policyChange(plan.Effect, state.Effect),
			PolicyCondition: policyChange(plan.Condition, state.Condition),
			PolicyConsensus: policyChange(plan.Consensus, state.Consensus),
			PolicyNotes:     policyChange(plan.Notes, state.Notes),
			Time:            policyChange(plan.Time, state.Time),
		}
		plan.UpdatedAt = state.UpdatedAt
		if params == (client.UpdatePolicyParams{PolicyID: id}) {
			return // only timeouts changed
		}
		out, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).UpdatePolicy, params)
		r.pd.lists.Forget(policiesListKey)
		if err != nil {
			addAPIError(diags, "Error updating policy", client.OpUpdatePolicy.Name, "policy "+id, err)
			return
		}
		plan.UpdatedAt = activityTime(out.Activity)
		made := plan.decided()
		r.guardApplied(lockout.Change{ID: id, After: &made})
	})
}

func (r *policyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state policyModel
	timeout, ok := r.readTimed(ctx, req.State, &state, timeouts.Value.Delete, &resp.Diagnostics)
	if !ok {
		return
	}
	id, ok := deleteLostCreate(ctx, r.pd, resp, client.OpCreatePolicies, state.ID.ValueString(), policyCreatedID)
	if !ok {
		return
	}
	// The plan may not have seen this delete (a replacement plans only its
	// create): the lockout guard judges it before it is submitted or joins
	// a batch.
	if r.pd.guard != nil {
		ok, found := r.pd.guard.AllowDelete(ctx, id, fmt.Sprintf("deleting policy %q (%s)", state.Name.ValueString(), id))
		if addFindings(&resp.Diagnostics, found); !ok {
			return
		}
	}
	if r.pd.runner.Batches != nil {
		deleteItem(ctx, r.pd, timeout, policyDeletes, id, "policy "+id, "Error deleting policy", &resp.Diagnostics, policiesListKey)
	} else {
		deleteByActivity(ctx, r.pd, timeout, (*client.Client).DeletePolicy, client.DeletePolicyParams{PolicyID: id},
			client.OpDeletePolicy, "policy "+id, "Error deleting policy", &resp.Diagnostics, policiesListKey)
	}
	if !resp.Diagnostics.HasError() {
		r.guardApplied(lockout.Change{ID: id})
	}
}
