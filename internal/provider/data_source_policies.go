package provider

import (
	"context"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// NewPoliciesDataSource is the custody_policies data source.
func NewPoliciesDataSource() datasource.DataSource {
	return newDataSource("policies", policiesSchema(), readPolicies)
}

type policiesDataSourceModel struct {
	Policies []policyDataSourceModel `tfsdk:"policies"`
}

func policiesSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Every policy of the organization (`list_policies`), in the service's order, with the " +
			"same attributes as the `custody_policy` data source. Takes no arguments.",
		Attributes: map[string]schema.Attribute{
			// Each item has the attributes of the custody_policy data source,
			// with id as an output.
			"policies": computedList("The organization's policies, in the service's order; empty when there are none.",
				policyDataSourceAttributes(computedString("The policy id assigned by the service."))),
		},
	}
}

func readPolicies(ctx context.Context, d *dataSourceBase, m *policiesDataSourceModel, diags *diag.Diagnostics) {
	out, err := cachedPolicies(ctx, d.pd)
	if err != nil {
		addAPIError(diags, "Error reading policies", client.QueryListPolicies, "", err)
		return
	}
	*m = policiesDataSourceModel{Policies: listOf(out.all, policyDataSourceFlatten)}
}
