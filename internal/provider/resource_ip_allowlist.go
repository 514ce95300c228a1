package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ importableResource                    = &ipAllowlistResource{}
	_ resource.ResourceWithConfigValidators = &ipAllowlistResource{}
)

// ipAllowlistOrgID is the id of the organization-level allowlist, which has
// no public key to name it.
const ipAllowlistOrgID = "organization"

// ipAllowlistPublicKeyRE is a compressed P-256 public key in lower-case
// hex: the service stores keys lower-case, so upper case would read back
// differently and show a difference on every plan.
var ipAllowlistPublicKeyRE = regexp.MustCompile(`^0[23][0-9a-f]{64}$`)

const ipAllowlistPublicKeyHelp = "must be an API key's public key: a compressed P-256 point in lower-case hex, " +
	"66 characters starting with 02 or 03"

// NewIPAllowlistResource is the custody_ip_allowlist resource.
func NewIPAllowlistResource() resource.Resource {
	return &ipAllowlistResource{resourceBase{typeName: "ip_allowlist", identity: ipAllowlistIdentity}}
}

type ipAllowlistResource struct{ resourceBase }

type ipAllowlistModel struct {
	ID                types.String `tfsdk:"id"`
	PublicKey         types.String `tfsdk:"public_key"`
	Enabled           types.Bool   `tfsdk:"enabled"`
	OnEvaluationError types.String `tfsdk:"on_evaluation_error"`
	Rules             types.Set    `tfsdk:"rules"`
	resourceTimeouts
}

type ipAllowlistRuleModel struct {
	CIDR  types.String `tfsdk:"cidr"`
	Label types.String `tfsdk:"label"`
}

var ipAllowlistRuleType = types.ObjectType{AttrTypes: map[string]attr.Type{"cidr": types.StringType, "label": types.StringType}}

func (r *ipAllowlistResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Restricts the addresses API requests may come from. Without `public_key` this is the " +
			"organization-level allowlist, which applies to every API key that has no allowlist of its own (only while " +
			"`enabled`); with `public_key` it is that API key's own allowlist, always enforced and overriding the " +
			"organization's.\n\n" +
			"An allowlist that leaves out the address Terraform runs from locks Terraform out: see the lockout warning " +
			"at the top of this page.\n\n" +
			"Create and update submit `" + client.OpSetIPAllowlist.Type + "` with the whole allowlist (it replaces the stored one, so " +
			"creating this resource overwrites an allowlist already set for the same scope: import it first to keep its rules); " +
			"delete submits `" + client.OpRemoveIPAllowlist.Type + "` (an allowlist already gone counts as removed). Refresh reads " +
			"`get_ip_allowlist`: rules, `enabled` or `on_evaluation_error` changed outside Terraform show as an update, and an " +
			"allowlist removed outside Terraform is planned for creation again. Import with `organization` or the key's public key.",
		Attributes: map[string]schema.Attribute{
			"id": idAttribute("`organization` for the organization-level allowlist, otherwise the API key's public key."),
			"public_key": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The API key whose own allowlist this is: its public key, a compressed P-256 point in " +
					"lower-case hex (66 characters starting with `02` or `03`). Leave it out for the organization-level " +
					"allowlist. Changing it replaces the allowlist.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.RegexMatches(ipAllowlistPublicKeyRE, ipAllowlistPublicKeyHelp)},
			},
			"enabled": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Whether the organization-level allowlist is enforced. Organization-level only: setting it " +
					"together with `public_key` is an error (a key-level allowlist is always enforced, and this attribute stays null " +
					"for it). Defaults to `false`, which is what the service stores when it is left out, so that the allowlist can " +
					"be prepared before it is switched on.",
				PlanModifiers: []planmodifier.Bool{ipAllowlistEnabledDefault},
			},
			"on_evaluation_error": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(client.OnEvaluationErrorDeny),
				MarkdownDescription: "What the service does when it cannot evaluate a caller's address: `DENY` (the default, " +
					"refuse the request) or `ALLOW` (let it through).",
				Validators: []validator.String{oneOf(client.OnEvaluationErrorAllow, client.OnEvaluationErrorDeny)},
			},
			"rules": schema.SetNestedAttribute{
				Required: true,
				MarkdownDescription: "The CIDR blocks requests may come from (a set: order does not matter). An empty set " +
					"allows no address at all.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cidr": schema.StringAttribute{
						Required: true,
						MarkdownDescription: "An IPv4 or IPv6 CIDR block without host bits, written canonically, e.g. " +
							"`203.0.113.0/24`, `198.51.100.10/32` or `2001:db8::/32`. Checked at plan time.",
						Validators: []validator.String{validCIDR()},
					},
					"label": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "A note on what the block is, e.g. `office`. Leave it out rather than setting it empty.",
						Validators:          []validator.String{notBlank()},
					},
				}},
			},
			"timeouts": ipAllowlistTimeouts(ctx),
		},
	}
}

func ipAllowlistTimeouts(ctx context.Context) schema.Attribute {
	return timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
		CreateDescription: "How long create waits for `" + client.OpSetIPAllowlist.Type + "`" + waitDefault,
		UpdateDescription: "How long update waits for `" + client.OpSetIPAllowlist.Type + "`" + waitDefault,
		DeleteDescription: "How long delete waits for `" + client.OpRemoveIPAllowlist.Type + "`" + waitDefault,
	}, "How long create, update and delete wait for their activity, approvals by other users included.")
}

func (r *ipAllowlistResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{ipAllowlistEnabledScope}
}

func (r *ipAllowlistResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan, timeouts.Value.Create, "Error creating IP allowlist", &resp.State, &resp.Diagnostics)
}

func (r *ipAllowlistResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan, timeouts.Value.Update, "Error updating IP allowlist", &resp.State, &resp.Diagnostics)
}

// apply is Create and Update, which are the same activity: it sets the
// planned allowlist, saves it and warns if the key has locked itself out.
func (r *ipAllowlistResource) apply(ctx context.Context, from tfsdk.Plan, which timeoutOf, summary string, state *tfsdk.State, diags *diag.Diagnostics) {
	var plan ipAllowlistModel
	timeout, ok := r.readTimed(ctx, from, &plan, which, diags)
	if !ok {
		return
	}
	r.set(ctx, &plan, timeout, summary, diags)
	if diags.HasError() {
		return
	}
	diags.Append(state.Set(ctx, &plan)...)
	r.warnIfLockedOut(ctx, plan, diags)
}

// set submits the whole allowlist of plan (create and update are the same
// activity) and fills the computed values. Nothing is read back: the
// stored allowlist is exactly what was sent, and a read-back could already
// be refused by the allowlist just set (see warnIfLockedOut).
func (r *ipAllowlistResource) set(ctx context.Context, plan *ipAllowlistModel, timeout time.Duration, summary string, diags *diag.Diagnostics) {
	var rules []ipAllowlistRuleModel
	diags.Append(plan.Rules.ElementsAs(ctx, &rules, false)...)
	if diags.HasError() {
		return
	}
	params := client.SetIPAllowlistParams{PublicKey: plan.PublicKey.ValueString(), OnEvaluationError: plan.OnEvaluationError.ValueString(),
		Rules: make([]client.IPAllowlistRuleParams, 0, len(rules))}
	for _, rule := range rules {
		params.Rules = append(params.Rules, client.IPAllowlistRuleParams{CIDR: rule.CIDR.ValueString(), Label: rule.Label.ValueString()})
	}
	if params.PublicKey == "" {
		// The plan resolved enabled to false when it was left out; it is
		// unknown only if public_key was, and then it is false here too.
		enabled := plan.Enabled.ValueBool()
		params.Enabled = &enabled
		plan.Enabled = types.BoolValue(enabled)
		plan.ID = types.StringValue(ipAllowlistOrgID)
	} else {
		if !plan.Enabled.IsNull() && !plan.Enabled.IsUnknown() {
			// Reached only when public_key was unknown at plan time, so the
			// config validator could not tell.
			diags.AddAttributeError(path.Root("enabled"), "enabled set on a key-level allowlist", ipAllowlistEnabledScopeHelp)
			return
		}
		plan.Enabled = types.BoolNull()
		plan.ID = types.StringValue(params.PublicKey)
	}
	_, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).SetIPAllowlist, params)
	if err != nil {
		addAPIError(diags, summary, client.OpSetIPAllowlist.Name, ipAllowlistName(params.PublicKey), err)
	}
}

// warnIfLockedOut asks for the allowlist just set with the same key: if the
// service refuses, the key has just locked itself out, which is better told
// now than by the next plan. It is a warning because the allowlist is set,
// as configured, and is in state.
func (r *ipAllowlistResource) warnIfLockedOut(ctx context.Context, plan ipAllowlistModel, diags *diag.Diagnostics) {
	_, err := r.pd.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{PublicKey: plan.PublicKey.ValueString()})
	if err == nil || errors.Is(err, client.ErrNotFound) {
		return
	}
	if !ipAllowlistDenied(err) {
		tflog.Warn(ctx, "reading back the IP allowlist failed", map[string]any{"error": err.Error()})
		return
	}
	diags.AddWarning("This API key is now refused by the IP allowlist",
		fmt.Sprintf("The %s was set, but the service now refuses this provider's own requests: %v\n\n%s",
			ipAllowlistName(plan.PublicKey.ValueString()), err, ipAllowlistRecoveryHelp))
}

func (r *ipAllowlistResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	refreshState(ctx, resp, func(m *ipAllowlistModel, diags *diag.Diagnostics) bool {
		key := m.PublicKey.ValueString()
		got, err := r.pd.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{PublicKey: key})
		if errors.Is(err, client.ErrNotFound) {
			tflog.Warn(ctx, "IP allowlist no longer exists; removing it from state", map[string]any{"allowlist": ipAllowlistName(key)})
			return false
		}
		if err != nil {
			addAPIError(diags, "Error reading IP allowlist", client.QueryGetIPAllowlist, ipAllowlistName(key), err)
			return false
		}
		diags.Append(ipAllowlistFlatten(ctx, m, got.Allowlist)...)
		return true
	})
}

// ipAllowlistFlatten copies what the service stores into m.
func ipAllowlistFlatten(ctx context.Context, m *ipAllowlistModel, a client.IPAllowlist) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.StringValue(ipAllowlistOrgID)
	m.PublicKey = types.StringNull()
	m.Enabled = types.BoolNull()
	if a.PublicKey != "" {
		m.ID, m.PublicKey = types.StringValue(a.PublicKey), types.StringValue(a.PublicKey)
	} else {
		m.Enabled = types.BoolValue(a.Enabled != nil && *a.Enabled) // absent means false
	}
	onErr := a.OnEvaluationError
	if onErr == "" {
		onErr = client.OnEvaluationErrorDeny // the service's default
	}
	m.OnEvaluationError = types.StringValue(onErr)
	rules := make([]ipAllowlistRuleModel, 0, len(a.Rules))
	for _, rule := range a.Rules {
		label := types.StringNull() // an absent label is null, as in a config that leaves it out
		if rule.Label != "" {
			label = types.StringValue(rule.Label)
		}
		rules = append(rules, ipAllowlistRuleModel{CIDR: types.StringValue(rule.CIDR), Label: label})
	}
	set, d := types.SetValueFrom(ctx, ipAllowlistRuleType, rules)
	diags.Append(d...)
	m.Rules = set
	return diags
}

func (r *ipAllowlistResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state ipAllowlistModel
	timeout, ok := r.readTimed(ctx, req.State, &state, timeouts.Value.Delete, &resp.Diagnostics)
	if !ok {
		return
	}
	params := client.RemoveIPAllowlistParams{PublicKey: state.PublicKey.ValueString()}
	deleteByActivity(ctx, r.pd, timeout, (*client.Client).RemoveIPAllowlist, params,
		client.OpRemoveIPAllowlist, ipAllowlistName(params.PublicKey), "Error deleting IP allowlist", &resp.Diagnostics)
}

// ipAllowlistIdentity is { organization_id?, public_key? }: without a key,
// the organization's own allowlist.
var ipAllowlistIdentity = identitySpec{
	attrs: []identityAttr{organizationAttr(""), {name: "public_key", state: "public_key",
		desc: "The API key whose own allowlist this is; none for the organization-level allowlist."}},
	importID: func(v map[string]string) string { return cmp.Or(v["public_key"], ipAllowlistOrgID) },
}

// ImportState takes `organization` or an API key's public key, or the
// identity.
func (r *ipAllowlistResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	id, ok := r.identityImportID(ctx, req, &resp.Diagnostics)
	switch {
	case !ok:
		return
	case id == ipAllowlistOrgID:
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("public_key"), types.StringNull())...)
	case ipAllowlistPublicKeyRE.MatchString(id):
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("public_key"), id)...)
	default:
		resp.Diagnostics.AddError("Invalid import ID for custody_ip_allowlist",
			fmt.Sprintf("The import ID %q is neither %q (the organization-level allowlist) nor an API key's public key "+
				"(%s), for a key-level allowlist.", id, ipAllowlistOrgID, ipAllowlistPublicKeyHelp))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
