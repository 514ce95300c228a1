package provider

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Resource identity (Terraform 1.12+, OpenTofu 1.12+): every resource
// names its object with a small object of strings, kept beside the state,
// which `import { to = …, identity = { … } }` takes in place of an import
// id. Each resource declares its identity as an identitySpec; resourceBase
// serves the schema, derives the identity from the state at the end of
// Create, Read, Update and ImportState (identify), and turns an identity
// to import into the import id the resource already takes
// (identityImportID), so that both ways of importing meet in one place.
//
// Terraform 1.11 sends and keeps no identity; the framework still asks
// for one after every Read and Create, and 1.11 ignores it.

// identityOrganization is the attribute every identity has: the
// organization the object belongs to, which defaults to the provider's.
const identityOrganization = "organization_id"

// identityAttr is one attribute of an identity.
type identityAttr struct {
	name string
	// state is the state attribute the value mirrors; "" for the
	// organization, which is the provider's.
	state    string
	required bool // RequiredForImport; otherwise OptionalForImport
	desc     string
}

// identitySpec is a resource's identity: its attributes, and the import
// id that names the same object (importID takes the values by name, ""
// for a null, with organization_id set to the provider's).
type identitySpec struct {
	attrs    []identityAttr
	importID func(values map[string]string) string
}

// organizationAttr is the optional organization_id, mirroring the state
// attribute state ("" for none: the provider's organization).
func organizationAttr(state string) identityAttr {
	return identityAttr{name: identityOrganization, state: state, desc: "The organization the object belongs to. " +
		"Defaults to the provider's `organization_id`, the only organization the provider can reach."}
}

// idIdentity is the identity { id, organization_id? } of an object named
// by its id alone (a policy, a private key tag, a webhook endpoint).
func idIdentity(what string) identitySpec {
	return identitySpec{
		attrs: []identityAttr{
			{name: "id", state: "id", required: true, desc: "The " + what + " id the service assigned."},
			organizationAttr(""),
		},
		importID: func(v map[string]string) string { return v["id"] },
	}
}

func (r *resourceBase) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	attrs := make(map[string]identityschema.Attribute, len(r.identity.attrs))
	for _, a := range r.identity.attrs {
		attrs[a.name] = identityschema.StringAttribute{RequiredForImport: a.required, OptionalForImport: !a.required, Description: a.desc}
	}
	resp.IdentitySchema = identityschema.Schema{Attributes: attrs}
}

// identify sets identity from state; Create, Read, Update and ImportState
// defer it. An identity may gain values where it had none, and never
// change one it had:
//   - an operation that failed leaves it alone: a create whose answer was
//     lost keeps its placeholder with a fully null identity;
//   - a placeholder that stays one (its activity still waits), and a
//     resource that Read removed, keep theirs, or get the organization
//     alone if they had none (the framework wants an identity after every
//     Read);
//   - a placeholder resolved to its object gains the object's id, and an
//     identity imported without organization_id gains the provider's.
//
// The framework would refuse the first gain ("Unexpected Identity
// Change": it allows none but from a fully null identity), so identify
// checks changes itself (resourceBase.Metadata sets MutableIdentity).
func (r *resourceBase) identify(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || diags.HasError() || r.pd == nil {
		return
	}
	if state.Raw.IsNull() || r.isPlaceholder(ctx, state) {
		if identity.Raw.IsFullyNull() {
			diags.Append(identity.SetAttribute(ctx, path.Root(identityOrganization), r.pd.client.OrganizationID())...)
		}
		return
	}
	for _, a := range r.identity.attrs {
		v := types.StringValue(r.pd.client.OrganizationID())
		if a.state != "" {
			diags.Append(state.GetAttribute(ctx, path.Root(a.state), &v)...)
		}
		var had types.String
		diags.Append(identity.GetAttribute(ctx, path.Root(a.name), &had)...)
		if !had.IsNull() && !had.Equal(v) {
			diags.AddError("Unexpected Identity Change", fmt.Sprintf("The identity of this custody_%s had %s %s, and its state now "+
				"says %s. An identity never changes; this is always a bug in the provider, please report it.", r.typeName, a.name, had, v))
		}
		diags.Append(identity.SetAttribute(ctx, path.Root(a.name), v)...)
	}
}

// isPlaceholder reports whether state holds a lost create's placeholder.
func (r *resourceBase) isPlaceholder(ctx context.Context, state *tfsdk.State) bool {
	var id types.String
	if state.GetAttribute(ctx, path.Root("id"), &id).HasError() {
		return false
	}
	return strings.HasPrefix(id.ValueString(), client.LostCreateIDPrefix)
}

// identityImportID is the import id of an import: req.ID when imported by
// id, else the id that names the object of req.Identity. ok is false when
// it reported an error: an identity of another organization than the
// provider's, or without a required attribute.
func (r *resourceBase) identityImportID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) (string, bool) {
	if req.ID != "" || req.Identity == nil {
		return req.ID, true
	}
	if r.pd == nil {
		diags.AddError("Provider not configured", "The provider must be configured before importing custody_"+r.typeName+
			" by identity; this is always a bug in the provider.")
		return "", false
	}
	values := make(map[string]string, len(r.identity.attrs))
	for _, a := range r.identity.attrs {
		var v types.String
		diags.Append(req.Identity.GetAttribute(ctx, path.Root(a.name), &v)...)
		values[a.name] = v.ValueString()
		if a.required && values[a.name] == "" && !diags.HasError() {
			diags.AddAttributeError(path.Root(a.name), "Missing identity attribute",
				fmt.Sprintf("Importing custody_%s by identity needs %s.", r.typeName, a.name))
		}
	}
	org, want := values[identityOrganization], r.pd.client.OrganizationID()
	if org != "" && org != want {
		diags.AddAttributeError(path.Root(identityOrganization), "Identity of another organization",
			fmt.Sprintf("The identity names organization %q, but the provider is configured for organization %q and can reach no "+
				"other. Import it with a provider configured for %q, or leave organization_id out.", org, want, org))
	}
	values[identityOrganization] = cmp.Or(org, want)
	return r.identity.importID(values), !diags.HasError()
}
