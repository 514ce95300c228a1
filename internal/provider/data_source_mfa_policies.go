package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
)

// NewMfaPoliciesDataSource is the custody_mfa_policies data source.
func NewMfaPoliciesDataSource() datasource.DataSource {
	return newDataSource("mfa_policies", mfaPoliciesSchema(), readMfaPolicies)
}

type mfaPoliciesDataSourceModel struct {
	UserID      types.String           `tfsdk:"user_id"`
	MfaPolicies []mfaPoliciesItemModel `tfsdk:"mfa_policies"`
}

// mfaPoliciesItemModel is one policy: its id plus the fields that
// custody_mfa_policy has too.
type mfaPoliciesItemModel struct {
	MfaPolicyID types.String `tfsdk:"mfa_policy_id"`
	mfaPolicyFieldsModel
}

func mfaPoliciesSchema() schema.Schema {
	item := mfaPolicyAttributes()
	item["mfa_policy_id"] = computedString("The policy's id.")
	return schema.Schema{
		MarkdownDescription: "All MFA policies of a user, in the order the service returns them. " +
			"Use `custody_mfa_policy` to read one policy by id.",
		Attributes: map[string]schema.Attribute{
			"user_id": requiredArgument("The id of the user whose MFA policies to list.", notBlank()),
			"mfa_policies": computedList("The user's MFA policies; an empty list when the user has none. "+
				"`order` says in which order the service evaluates them.", item),
		},
	}
}

func readMfaPolicies(ctx context.Context, d *dataSourceBase, m *mfaPoliciesDataSourceModel, diags *diag.Diagnostics) {
	out, err := cachedMfaPolicies(ctx, d.pd, m.UserID.ValueString())
	if err != nil {
		addAPIError(diags, "Error reading MFA policies", client.QueryGetMfaPolicies, "user "+m.UserID.ValueString(), err)
		return
	}
	m.MfaPolicies = listOf(out.MfaPolicies, func(p client.MfaPolicy) mfaPoliciesItemModel {
		return mfaPoliciesItemModel{MfaPolicyID: types.StringValue(p.MfaPolicyID), mfaPolicyFieldsModel: mfaPolicyFlatten(p)}
	})
}

// cachedMfaPolicies lists a user's MFA policies once per command, for every
// custody_mfa_policies and custody_mfa_policy of that user (see percommand.Lists).
func cachedMfaPolicies(ctx context.Context, pd *providerData, userID string) (*client.GetMfaPoliciesResponse, error) {
	return percommand.List(ctx, pd.lists, "mfa_policies/"+userID, func(ctx context.Context) (*client.GetMfaPoliciesResponse, error) {
		return pd.client.GetMfaPolicies(ctx, client.GetMfaPoliciesRequest{UserID: userID})
	})
}
