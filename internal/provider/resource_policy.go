package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

var (
	_ resource.Resource                = &policyResource{}
	_ resource.ResourceWithConfigure   = &policyResource{}
	_ resource.ResourceWithImportState = &policyResource{}
)

var (
	policyCreateKind = activityKind{"ACTIVITY_TYPE_CREATE_POLICIES", "createPoliciesIntent", "createPoliciesResult"}
	policyUpdateKind = activityKind{"ACTIVITY_TYPE_UPDATE_POLICY_V2", "updatePolicyIntentV2", "updatePolicyResultV2"}
	policyDeleteKind = activityKind{"ACTIVITY_TYPE_DELETE_POLICY", "deletePolicyIntent", "deletePolicyResult"}
)

// NewPolicyResource is the custody_policy resource.
func NewPolicyResource() resource.Resource { return &policyResource{} }

type policyResource struct{ pd *providerData }

type policyModel struct {
	ID        types.String   `tfsdk:"id"`
	Name      types.String   `tfsdk:"name"`
	Effect    types.String   `tfsdk:"effect"`
	Condition types.String   `tfsdk:"condition"`
	Consensus types.String   `tfsdk:"consensus"`
	Time      types.String   `tfsdk:"time"`
	Notes     types.String   `tfsdk:"notes"`
	CreatedAt types.String   `tfsdk:"created_at"`
	UpdatedAt types.String   `tfsdk:"updated_at"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func (r *policyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_policy"
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

func (r *policyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A policy of the organization: an `effect` (allow or deny) applied to the activities that match its " +
			"`condition`, possibly requiring the approvals described by `consensus`, during `time`.\n\n" +
			"Create submits `ACTIVITY_TYPE_CREATE_POLICIES` (one policy), an update changes the policy in place with " +
			"`ACTIVITY_TYPE_UPDATE_POLICY_V2` (only the changed fields are sent), and destroy submits `ACTIVITY_TYPE_DELETE_POLICY`. " +
			"Each of them may need approvals by other users (consensus): the provider then waits up to the `timeouts` (or the " +
			"provider's `approval_timeout`); if the time runs out, the error names the activity and its fingerprint, and the next " +
			"apply adopts that same activity once it is approved instead of submitting it again. An expression the service cannot " +
			"parse fails the activity, and the error shows the activity id and the service's message.\n\n" +
			"Refresh reads the policy with `get_policy`, so a change made outside Terraform shows as an update and a deleted " +
			"policy is planned for creation again. Import with the policy id: `terraform import custody_policy.example <policy id>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The policy id assigned by the service; also the import id.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The policy's name: 1 to 256 bytes, not only spaces. Changed in place.",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 256),
					stringvalidator.RegexMatches(regexp.MustCompile(`\S`), "must contain a character other than a space"),
				},
			},
			"effect": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "What the policy does to the activities it matches: `EFFECT_ALLOW` or `EFFECT_DENY`. Changed in place.",
				Validators:          []validator.String{stringvalidator.OneOf(client.EffectAllow, client.EffectDeny)},
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
			"created_at": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "When the policy was created (RFC 3339, UTC).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			// No UseStateForUnknown: every update moves it, so it is unknown
			// in an update plan and read back after the update.
			"updated_at": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "When the policy was last changed (RFC 3339, UTC).",
			},
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

func (r *policyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// policyOptional maps the service's "" (absent) to null.
func policyOptional(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// policyTimestamp renders a service timestamp as RFC 3339 in UTC.
func policyTimestamp(ts client.Timestamp) (types.String, error) {
	t, err := ts.Time()
	if err != nil {
		return types.StringNull(), err
	}
	return types.StringValue(t.UTC().Format(time.RFC3339Nano)), nil
}

// flatten copies the service's policy into the model; timeouts stay as they are.
func (m *policyModel) flatten(p *client.Policy) error {
	m.ID = types.StringValue(p.PolicyID)
	m.Name = types.StringValue(p.PolicyName)
	m.Effect = types.StringValue(p.Effect)
	m.Condition = policyOptional(p.Condition)
	m.Consensus = policyOptional(p.Consensus)
	m.Time = policyOptional(p.Time)
	m.Notes = types.StringValue(p.Notes)
	var err error
	if m.CreatedAt, err = policyTimestamp(p.CreatedAt); err != nil {
		return fmt.Errorf("createdAt: %w", err)
	}
	if m.UpdatedAt, err = policyTimestamp(p.UpdatedAt); err != nil {
		return fmt.Errorf("updatedAt: %w", err)
	}
	return nil
}

// readInto fetches the policy id and fills m. found is false when the
// service no longer has it.
func (r *policyResource) readInto(ctx context.Context, id string, m *policyModel) (found bool, err error) {
	got, err := r.pd.client.GetPolicy(ctx, client.GetPolicyRequest{PolicyID: id})
	if errors.Is(err, client.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := m.flatten(&got.Policy); err != nil {
		return true, fmt.Errorf("get_policy answered a timestamp the provider cannot read (%v); this is always a bug in the provider or the service", err)
	}
	return true, nil
}

func (r *policyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan policyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, r.pd.approvalTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Null expressions become "" and are left out by the client (omitempty).
	params := client.CreatePoliciesParams{Policies: []client.PolicyParams{{
		PolicyName: plan.Name.ValueString(),
		Effect:     plan.Effect.ValueString(),
		Condition:  plan.Condition.ValueString(),
		Consensus:  plan.Consensus.ValueString(),
		Notes:      plan.Notes.ValueString(),
		Time:       plan.Time.ValueString(),
	}}}
	out, err := runActivity(ctx, r.pd, timeout, policyCreateKind, params,
		func(ctx context.Context, c *client.Client) (*client.Submitted[client.CreatePoliciesResult], error) {
			return c.CreatePolicies(ctx, params)
		})
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error creating policy", "create_policies", fmt.Sprintf("policy %q", plan.Name.ValueString()), err)
		return
	}
	if len(out.Result.PolicyIDs) != 1 {
		resp.Diagnostics.AddError("Error creating policy", fmt.Sprintf("create_policies activity %s returned %d policy ids for one policy; "+
			"this is always a bug in the provider or the service", out.Activity.ID, len(out.Result.PolicyIDs)))
		return
	}
	// The activity has run: record it even if Terraform is interrupting us.
	ctx, done := r.pd.client.SeeThrough(ctx)
	defer done()
	id := out.Result.PolicyIDs[0]
	tflog.Info(ctx, "created policy", map[string]any{"policy_id": id, "activity_id": out.Activity.ID})
	found, err := r.readInto(ctx, id, &plan)
	if err == nil && !found {
		// Only an adopted activity can get here: its policy was deleted
		// after it completed and before this apply.
		err = fmt.Errorf("policy %s, created by activity %s, no longer exists; run apply again to create it anew", id, out.Activity.ID)
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error reading policy after create", "get_policy", "policy "+id, err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *policyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state policyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	found, err := r.readInto(ctx, id, &state)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error reading policy", "get_policy", "policy "+id, err)
		return
	}
	if !found {
		tflog.Warn(ctx, "policy no longer exists; removing it from state so that it is planned for creation", map[string]any{"policy_id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
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
	var plan, state policyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, r.pd.approvalTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
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
	// Only timeouts changed: nothing to send, but the new timeouts are kept.
	if params != (client.UpdatePolicyParams{PolicyID: id}) {
		_, err := runActivity(ctx, r.pd, timeout, policyUpdateKind, params,
			func(ctx context.Context, c *client.Client) (*client.Submitted[client.PolicyIDResult], error) {
				return c.UpdatePolicy(ctx, params)
			})
		if err != nil {
			addAPIError(&resp.Diagnostics, "Error updating policy", "update_policy", "policy "+id, err)
			return
		}
	}
	// The activity has run: record it even if Terraform is interrupting us.
	ctx, done := r.pd.client.SeeThrough(ctx)
	defer done()
	// Read back for the new updated_at (and anything the service normalised).
	found, err := r.readInto(ctx, id, &plan)
	if err == nil && !found {
		err = fmt.Errorf("policy %s disappeared right after its update", id)
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error reading policy after update", "get_policy", "policy "+id, err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *policyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state policyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, r.pd.approvalTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	params := client.DeletePolicyParams{PolicyID: id}
	_, err := runActivity(ctx, r.pd, timeout, policyDeleteKind, params,
		func(ctx context.Context, c *client.Client) (*client.Submitted[client.PolicyIDResult], error) {
			return c.DeletePolicy(ctx, params)
		})
	if errors.Is(err, client.ErrNotFound) {
		tflog.Info(ctx, "policy was already deleted", map[string]any{"policy_id": id})
		return
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error deleting policy", "delete_policy", "policy "+id, err)
	}
}

func (r *policyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
