package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewOrganizationDataSource is the custody_organization data source.
func NewOrganizationDataSource() datasource.DataSource {
	return newDataSource("organization", organizationSchema(), readOrganization)
}

type organizationDataSourceModel struct {
	OrganizationID   types.String `tfsdk:"organization_id"`
	OrganizationName types.String `tfsdk:"organization_name"`
	UserID           types.String `tfsdk:"user_id"`
	Username         types.String `tfsdk:"username"`
}

func organizationSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The organization the provider acts on and the user that owns the provider's API key " +
			"(`whoami`). Useful to check the credentials, or to use the organization's current name or the caller's user id " +
			"elsewhere in the configuration. Takes no arguments.",
		Attributes: map[string]schema.Attribute{
			"organization_id":   computedString("The organization's id: the provider's `organization_id`."),
			"organization_name": computedString("The organization's current name (managed by `custody_organization_name`)."),
			"user_id":           computedString("The id of the user that owns the provider's API key."),
			"username":          computedString("The name of the user that owns the provider's API key."),
		},
	}
}

func readOrganization(ctx context.Context, d *dataSourceBase, m *organizationDataSourceModel, diags *diag.Diagnostics) {
	out, err := d.pd.client.Whoami(ctx, client.WhoamiRequest{})
	if err != nil {
		addAPIError(diags, "Error reading organization", client.QueryWhoami, "", err)
		return
	}
	*m = organizationDataSourceModel{
		OrganizationID:   types.StringValue(out.OrganizationID),
		OrganizationName: types.StringValue(out.OrganizationName),
		UserID:           types.StringValue(out.UserID),
		Username:         types.StringValue(out.Username),
	}
}
