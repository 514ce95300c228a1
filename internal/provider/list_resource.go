package provider

import (
	"cmp"
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// List resources (Terraform 1.14+): `terraform query` lists the objects
// of a resource type that exist, and `-generate-config-out` writes the
// configuration and import blocks that adopt them. Every list resource of
// this provider is a listResource: what differs is only how it finds its
// objects (objects, in list_resources.go). Each object then goes through
// its resource's own ImportState, which gives its identity, and, when
// Terraform asks for the object (include_resource), its resource's Read:
// what a query lists is exactly what an import of it would hold, and the
// per-command cached lists the resources share make that one list
// request, not one per object.

// listedObject is one object a list resource found: the name it shows,
// its id (which orders objects of the same name) and the import id its
// resource takes.
type listedObject struct{ name, id, importID string }

// listResource lists the objects of one resource type.
type listResource struct {
	typeName    string // the resource type after "custody_"
	newResource func() resource.Resource
	description string
	attributes  map[string]listschema.Attribute // the list block's config, if any
	// objects finds the objects, in any order; a failure is in diags.
	objects func(ctx context.Context, pd *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listedObject
	pd      *providerData
}

var _ list.ListResourceWithConfigure = &listResource{}

func (l *listResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.typeName
}

func (l *listResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (l *listResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{MarkdownDescription: l.description + " Objects come in a stable order, by name and then " +
		"id; a list block keeps at most its `limit` (default 100), so set `limit` above the number of objects to adopt them all.",
		Attributes: l.attributes}
}

// List streams the objects by name, then id, and stops at the request's
// limit (none when it is 0).
func (l *listResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	if l.pd == nil {
		diags.AddError("Provider not configured", "custody_"+l.typeName+" cannot be listed before the provider is configured; "+
			"this is always a bug in the provider.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	found := l.objects(ctx, l.pd, req.Config, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	slices.SortFunc(found, func(a, b listedObject) int { return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id)) })
	r := l.newResource()
	if c, ok := r.(resource.ResourceWithConfigure); ok {
		var resp resource.ConfigureResponse
		c.Configure(ctx, resource.ConfigureRequest{ProviderData: l.pd}, &resp)
		diags.Append(resp.Diagnostics...)
	}
	importer, ok := r.(resource.ResourceWithImportState)
	if !ok || diags.HasError() {
		diags.AddError("Cannot list custody_"+l.typeName, "Its resource cannot be imported; this is always a bug in the provider.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		sent := int64(0)
		for _, o := range found {
			if req.Limit > 0 && sent >= req.Limit {
				return
			}
			result, exists := l.result(ctx, r, importer, req, o)
			if !exists {
				continue // gone between the list and its read
			}
			sent++
			if !push(result) {
				return
			}
		}
	}
}

// result is o as its resource imports it: its identity, and with
// include_resource the object its Read gives. exists is false when the
// Read finds it gone.
func (l *listResource) result(ctx context.Context, r resource.Resource, importer resource.ResourceWithImportState, req list.ListRequest,
	o listedObject,
) (result list.ListResult, exists bool) {
	result = req.NewListResult(ctx)
	result.DisplayName = o.name
	imported := resource.ImportStateResponse{State: tfsdk.State{Schema: req.ResourceSchema, Raw: result.Resource.Raw}, Identity: result.Identity}
	importer.ImportState(ctx, resource.ImportStateRequest{ID: o.importID}, &imported)
	result.Diagnostics.Append(imported.Diagnostics...)
	if !req.IncludeResource || result.Diagnostics.HasError() {
		return result, true
	}
	read := resource.ReadResponse{State: imported.State, Identity: imported.Identity}
	r.Read(ctx, resource.ReadRequest{State: imported.State, Identity: imported.Identity}, &read)
	result.Diagnostics.Append(read.Diagnostics...)
	if !read.Diagnostics.HasError() && read.State.Raw.IsNull() {
		return result, false
	}
	result.Resource.Raw = read.State.Raw
	return result, true
}
