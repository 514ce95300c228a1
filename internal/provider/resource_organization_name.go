package provider

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var _ importableResource = &organizationNameResource{}

// NewOrganizationNameResource is the custody_organization_name resource.
func NewOrganizationNameResource() resource.Resource {
	return &organizationNameResource{resourceBase{typeName: "organization_name", identity: organizationNameIdentity}}
}

type organizationNameResource struct{ resourceBase }

type organizationNameModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
	resourceTimeouts
}

func (r *organizationNameResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	const wait = "How long to wait for the rename, including approvals by other users (consensus), as a Go duration such as `30m`. " +
		"Defaults to the provider's `approval_timeout`."
	// Delete submits nothing, so there is no delete timeout to offer.
	to := timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true,
		CreateDescription: wait, UpdateDescription: wait},
		"How long create and update wait for the rename activity, approvals included.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "The name of the organization the provider is configured for. The organization always exists, so " +
			"this resource manages one setting rather than an object; declare it at most once per organization.\n\n" +
			"Create and update both rename the organization with `" + client.OpUpdateOrganizationName.Type + "`, which may need " +
			"approvals by other users (see `timeouts`). Refresh reads the name with `whoami`, so a rename made outside Terraform " +
			"shows as an update.\n\n" +
			"**Destroy leaves the organization's name unchanged**: an organization cannot be without a name, so destroying this " +
			"resource only removes it from the Terraform state.\n\n" +
			"Import with the organization id the provider is configured for: " +
			"`terraform import custody_organization_name.this <organization id>`; any other id is refused.",
		Attributes: map[string]schema.Attribute{
			"id":       idAttribute("The organization id (the provider's `organization_id`); also the import id."),
			"name":     nameAttribute("The organization's name: 1 to 256 bytes, not only spaces. Changed in place."),
			"timeouts": to,
		},
	}
}

// rename submits the new name with the given timeout and fills m from the
// activity's answer: the service stores the name as sent, so nothing is
// read back.
func (r *organizationNameResource) rename(ctx context.Context, m *organizationNameModel, timeout time.Duration, diags *diag.Diagnostics) {
	params := client.UpdateOrganizationNameParams{OrganizationName: m.Name.ValueString()}
	out, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).UpdateOrganizationName, params)
	if err != nil {
		addAPIError(diags, "Error renaming organization", client.OpUpdateOrganizationName.Name, "organization "+r.pd.client.OrganizationID(), err)
		return
	}
	tflog.Info(ctx, "renamed organization", map[string]any{"organization_id": out.Result.OrganizationID, "activity_id": out.Activity.ID})
	// The result names the organization; the configured one stands in if
	// a service leaves it out.
	r.checkOrganization(cmp.Or(out.Result.OrganizationID, r.pd.client.OrganizationID()), m, diags)
}

// checkOrganization sets m's id to org, unless m already manages another
// organization: a provider now configured for another organization must
// not quietly take over that organization's name in this resource's place.
func (r *organizationNameResource) checkOrganization(org string, m *organizationNameModel, diags *diag.Diagnostics) {
	if known := m.ID.ValueString(); known != "" && known != org {
		diags.AddAttributeError(path.Root("id"), "Organization changed",
			fmt.Sprintf("This custody_organization_name manages organization %q, but the provider is now configured for organization %q. "+
				"Configure the provider for %q again, or remove the resource from state (terraform state rm) and import it for the new organization.",
				known, org, known))
		return
	}
	m.ID = types.StringValue(org)
}

// readInto reads the organization's id and name with whoami.
func (r *organizationNameResource) readInto(ctx context.Context, m *organizationNameModel, diags *diag.Diagnostics) {
	who, err := r.pd.client.Whoami(ctx, client.WhoamiRequest{})
	if err != nil {
		addAPIError(diags, "Error reading organization name", client.QueryWhoami, "organization "+r.pd.client.OrganizationID(), err)
		return
	}
	r.checkOrganization(who.OrganizationID, m, diags)
	if !diags.HasError() {
		m.Name = types.StringValue(who.OrganizationName)
	}
}

func (r *organizationNameResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan organizationNameModel
	if timeout, ok := r.readTimed(ctx, req.Plan, &plan, timeouts.Value.Create, &resp.Diagnostics); ok {
		r.rename(ctx, &plan, timeout, &resp.Diagnostics)
	}
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

func (r *organizationNameResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	// The organization cannot disappear while the provider's key works, so
	// there is no "gone" case: a failing whoami is an error.
	refreshState(ctx, resp, func(m *organizationNameModel, diags *diag.Diagnostics) bool {
		r.readInto(ctx, m, diags)
		return true
	})
}

func (r *organizationNameResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	updateFrame(ctx, &r.resourceBase, req, resp, func(plan, state *organizationNameModel, timeout time.Duration, diags *diag.Diagnostics) {
		// Only timeouts changed: renaming to the same name would submit an
		// activity (and perhaps ask for approvals) for nothing.
		if plan.Name.Equal(state.Name) {
			plan.ID = state.ID
			return
		}
		r.rename(ctx, plan, timeout, diags)
	})
}

// Delete submits nothing: the organization keeps its name, and only
// Terraform stops managing it.
func (r *organizationNameResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state organizationNameModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Info(ctx, "removing custody_organization_name from state; the organization's name is left as it is", map[string]any{
		"organization_id": state.ID.ValueString(), "organization_name": state.Name.ValueString()})
}

// organizationNameIdentity is { organization_id? }, which is also the id.
var organizationNameIdentity = identitySpec{
	attrs:    []identityAttr{organizationAttr("id")},
	importID: func(v map[string]string) string { return v[identityOrganization] },
}

// ImportState accepts only the configured organization's id (or an
// identity, whose organization_id defaults to it): whoami can read no
// other organization's name with this key.
func (r *organizationNameResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider must be configured before importing custody_organization_name; this is always a bug in the provider.")
		return
	}
	id, ok := r.identityImportID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	if want := r.pd.client.OrganizationID(); id != want {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Wrong organization id",
			fmt.Sprintf("Import id %q is not the configured organization: the provider is configured for organization %q, "+
				"and custody_organization_name can only manage that organization's name. Import it with id %q, or configure "+
				"the provider's organization_id for the organization you mean.", id, want, want))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
