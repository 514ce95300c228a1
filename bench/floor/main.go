// Command floor is the benchmark's framework floor: a minimal provider built
// on the same terraform-plugin-framework version as the custody provider,
// with one resource (floor_item) that has one string attribute and does no
// I/O at all. It measures what any framework provider costs before it does
// any work. Nothing here is tuned; it is written the obvious way.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func main() {
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address: "registry.terraform.io/custody-labs/floor",
	})
	if err != nil {
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
	return []func() resource.Resource{newItem}
}

func (p *floorProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
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
	var plan itemModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *item) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state itemModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *item) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan itemModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *item) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
	// Nothing to delete: the framework removes the resource from state.
}
