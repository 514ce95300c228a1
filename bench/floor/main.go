// Command floor is the benchmark's framework floor: a minimal provider built
// on the same terraform-plugin-framework version as the custody provider,
// with two resources that do no I/O at all. floor_item has one string
// attribute: what any framework provider costs before it does any work.
// floor_policy (policy.go) has custody_policy's schema: what a resource of
// that shape costs, the floor the custody provider is measured against.
// Nothing here is tuned; it is written the obvious way.
//
// Built with the tag bench_likecustody it is served the way the custody
// provider is (serve_likecustody.go): no provider logs when Terraform will
// not show them, and request contexts released. Those are choices of the
// process, not work of a resource, so the shaped floor (floor-shaped) runs
// that build; the one-attribute floor (floor) runs the plain one.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const address = "registry.terraform.io/custody-labs/floor"

func main() {
	if err := serve(); err != nil {
		log.Fatal(err.Error())
	}
}

var _ provider.Provider = (*floorProvider)(nil)

type floorProvider struct{}

func newProvider() provider.Provider { return &floorProvider{} }

func (p *floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "floor"
}

func (p *floorProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{}
}

func (p *floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *floorProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newItem, newPolicy}
}

func (p *floorProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}

// keep is all a floor resource does: it reads its model from src (the
// plan, or the state), lets fill set what the resource computes (nil for
// nothing), and saves the model as the state.
func keep[M any](ctx context.Context, src interface {
	Get(context.Context, any) diag.Diagnostics
}, state *tfsdk.State, diags *diag.Diagnostics, fill func(*M)) {
	var m M
	diags.Append(src.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	if fill != nil {
		fill(&m)
	}
	diags.Append(state.Set(ctx, &m)...)
}

var _ resource.Resource = (*item)(nil)

// item is floor_item: one required string attribute, kept as given.
type item struct{}

type itemModel struct {
	Name types.String `tfsdk:"name"`
}

func newItem() resource.Resource { return &item{} }

func (r *item) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_item"
}

func (r *item) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "An item that exists only in Terraform state.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Description: "Any string.",
				Required:    true,
			},
		},
	}
}

func (r *item) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	keep[itemModel](ctx, req.Plan, &resp.State, &resp.Diagnostics, nil)
}

func (r *item) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	keep[itemModel](ctx, req.State, &resp.State, &resp.Diagnostics, nil)
}

func (r *item) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	keep[itemModel](ctx, req.Plan, &resp.State, &resp.Diagnostics, nil)
}

func (r *item) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
	// Nothing to delete: the framework removes the resource from state.
}
