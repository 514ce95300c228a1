package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

var (
	_ datasource.DataSource              = &mfaPoliciesDataSource{}
	_ datasource.DataSourceWithConfigure = &mfaPoliciesDataSource{}
)

// NewMfaPoliciesDataSource is the custody_mfa_policies data source.
func NewMfaPoliciesDataSource() datasource.DataSource { return &mfaPoliciesDataSource{} }

type mfaPoliciesDataSource struct{ pd *providerData }

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

// mfaPoliciesItemObject is the schema of one list item.
func mfaPoliciesItemObject() schema.NestedAttributeObject {
	attrs := mfaPolicyAttributes()
	attrs["mfa_policy_id"] = computedString("The policy's id.")
	return schema.NestedAttributeObject{Attributes: attrs}
}

func (d *mfaPoliciesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_mfa_policies"
}

func (d *mfaPoliciesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "All MFA policies of a user, in the order the service returns them. " +
			"Use `custody_mfa_policy` to read one policy by id.",
		Attributes: map[string]schema.Attribute{
			"user_id": schema.StringAttribute{Required: true, Validators: []validator.String{notBlank()},
				MarkdownDescription: "The id of the user whose MFA policies to list."},
			"mfa_policies": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "The user's MFA policies; an empty list when the user has none. " +
					"`order` says in which order the service evaluates them.",
				NestedObject: mfaPoliciesItemObject(),
			},
		},
	}
}

func (d *mfaPoliciesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *mfaPoliciesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m mfaPoliciesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := cachedMfaPolicies(ctx, d.pd, m.UserID.ValueString())
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error reading MFA policies", "get_mfa_policies", "user "+m.UserID.ValueString(), err)
		return
	}
	// Never null: "no policies" is an empty list, which a for_each or a
	// length() can use without a null check.
	m.MfaPolicies = make([]mfaPoliciesItemModel, 0, len(out.MfaPolicies))
	for _, p := range out.MfaPolicies {
		m.MfaPolicies = append(m.MfaPolicies, mfaPoliciesItemModel{MfaPolicyID: types.StringValue(p.MfaPolicyID),
			mfaPolicyFieldsModel: mfaPolicyFlatten(p)})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// cachedMfaPolicies lists a user's MFA policies once per command, for every
// custody_mfa_policies and custody_mfa_policy of that user (see listCache).
func cachedMfaPolicies(ctx context.Context, pd *providerData, userID string) (*client.GetMfaPoliciesResponse, error) {
	return cachedList(ctx, pd.lists, "mfa_policies/"+userID, func(ctx context.Context) (*client.GetMfaPoliciesResponse, error) {
		return pd.client.GetMfaPolicies(ctx, client.GetMfaPoliciesRequest{UserID: userID})
	})
}
