package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

var (
	_ datasource.DataSource              = &policiesDataSource{}
	_ datasource.DataSourceWithConfigure = &policiesDataSource{}
)

// NewPoliciesDataSource is the custody_policies data source.
func NewPoliciesDataSource() datasource.DataSource { return &policiesDataSource{} }

type policiesDataSource struct{ pd *providerData }

type policiesDataSourceModel struct {
	Policies []policyDataSourceModel `tfsdk:"policies"`
}

// policiesObject is the schema of one item, the same attributes as the
// custody_policy data source with id as an output.
func policiesObject() schema.NestedAttributeObject {
	return schema.NestedAttributeObject{Attributes: policyDataSourceAttributes(schema.StringAttribute{
		Computed: true, MarkdownDescription: "The policy id assigned by the service.",
	})}
}

func (d *policiesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_policies"
}

func (d *policiesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Every policy of the organization (`list_policies`), in the service's order, with the " +
			"same attributes as the `custody_policy` data source. Takes no arguments.",
		Attributes: map[string]schema.Attribute{
			"policies": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The organization's policies, in the service's order; empty when there are none.",
				NestedObject:        policiesObject(),
			},
		},
	}
}

func (d *policiesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *policiesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	out, err := cachedPolicies(ctx, d.pd)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error reading policies", "list_policies", "", err)
		return
	}
	// Never null: an organization without policies has an empty list.
	m := policiesDataSourceModel{Policies: make([]policyDataSourceModel, 0, len(out.all))}
	for _, p := range out.all {
		m.Policies = append(m.Policies, policyDataSourceFlatten(p))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
