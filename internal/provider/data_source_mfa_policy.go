package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewMfaPolicyDataSource is the custody_mfa_policy data source.
func NewMfaPolicyDataSource() datasource.DataSource {
	return newDataSource("mfa_policy", mfaPolicySchema(), readMfaPolicy)
}

// mfaPolicyFieldsModel holds what every MFA policy has. It is embedded in
// both custody_mfa_policy and the items of custody_mfa_policies, whose
// attributes come from mfaPolicyAttributes, so the two cannot drift apart.
type mfaPolicyFieldsModel struct {
	Name                          types.String         `tfsdk:"name"`
	Condition                     types.String         `tfsdk:"condition"`
	RequiredAuthenticationMethods []mfaPolicyStepModel `tfsdk:"required_authentication_methods"`
	Order                         types.Int64          `tfsdk:"order"`
	Notes                         types.String         `tfsdk:"notes"`
	CreatedAt                     timetypes.RFC3339    `tfsdk:"created_at"`
	UpdatedAt                     timetypes.RFC3339    `tfsdk:"updated_at"`
}

// mfaPolicyStepModel is one step of required_authentication_methods.
type mfaPolicyStepModel struct {
	Any []mfaPolicyMethodModel `tfsdk:"any"`
}

// mfaPolicyMethodModel is one method that satisfies a step.
type mfaPolicyMethodModel struct {
	Type types.String `tfsdk:"type"`
	ID   types.String `tfsdk:"id"`
}

type mfaPolicyDataSourceModel struct {
	UserID      types.String `tfsdk:"user_id"`
	MfaPolicyID types.String `tfsdk:"mfa_policy_id"`
	mfaPolicyFieldsModel
}

// mfaPolicyStepAttributes are the attributes of one step: the methods of
// which any one satisfies it.
func mfaPolicyStepAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"any": computedList("The methods of this step; any one of them satisfies it (a single entry means that method "+
			"is required).", map[string]schema.Attribute{
			"type": computedString("The kind of authentication: " +
				"`AUTHENTICATION_TYPE_EMAIL_OTP`, `AUTHENTICATION_TYPE_SMS_OTP`, `AUTHENTICATION_TYPE_PASSKEY`, " +
				"`AUTHENTICATION_TYPE_API_KEY`, `AUTHENTICATION_TYPE_OAUTH` or `AUTHENTICATION_TYPE_SESSION`."),
			"id": computedString("A specific authenticator this method " +
				"must use, such as a session profile id; null when any authenticator of the type will do."),
		}),
	}
}

// mfaPolicyAttributes are the read-only attributes of one MFA policy,
// shared by custody_mfa_policy and the items of custody_mfa_policies.
func mfaPolicyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name": computedString("The policy's name."),
		"condition": computedString("The expression, evaluating to true " +
			"or false, that decides when the policy applies."),
		"required_authentication_methods": computedList("The steps the user must satisfy, in this order, one after the other. "+
			"Each step lists methods of which any one suffices.", mfaPolicyStepAttributes()),
		"order": computedInt64("The evaluation order of this policy " +
			"among the user's MFA policies."),
		"notes":      computedString("Free-text notes; null when there are none."),
		"created_at": computedTimestamp("When the policy was created, RFC 3339 (UTC)."),
		"updated_at": computedTimestamp("When the policy was last updated, RFC 3339 (UTC)."),
	}
}

// mfaPolicyFlatten converts one policy of the service to its model. Its
// lists are never nil, so that none is null.
func mfaPolicyFlatten(p client.MfaPolicy) mfaPolicyFieldsModel {
	steps := listOf(p.RequiredAuthenticationMethods, func(s client.RequiredAuthenticationMethod) mfaPolicyStepModel {
		return mfaPolicyStepModel{Any: listOf(s.Any, func(m client.AuthenticationMethod) mfaPolicyMethodModel {
			return mfaPolicyMethodModel{Type: types.StringValue(m.Type), ID: optionalString(m.ID)}
		})}
	})
	return mfaPolicyFieldsModel{
		Name:                          types.StringValue(p.MfaPolicyName),
		Condition:                     types.StringValue(p.Condition),
		RequiredAuthenticationMethods: steps,
		Order:                         types.Int64Value(p.Order),
		Notes:                         optionalString(p.Notes),
		CreatedAt:                     timestampValue(p.CreatedAt),
		UpdatedAt:                     timestampValue(p.UpdatedAt),
	}
}

func mfaPolicySchema() schema.Schema {
	attrs := mfaPolicyAttributes()
	attrs["user_id"] = requiredArgument("The id of the user whose MFA policy to read.", notBlank())
	attrs["mfa_policy_id"] = requiredArgument("The id of the MFA policy to read.", notBlank())
	return schema.Schema{
		MarkdownDescription: "One MFA policy of a user: when it applies and which authentication steps it requires. " +
			"Use `custody_mfa_policies` to list all of a user's policies. It reads the user's policies with one `get_mfa_policies` " +
			"per Terraform command, shared with the other MFA data sources of that user.",
		Attributes: attrs,
	}
}

func readMfaPolicy(ctx context.Context, d *dataSourceBase, m *mfaPolicyDataSourceModel, diags *diag.Diagnostics) {
	// The user's list, shared with the command's other MFA data sources of
	// that user, answers as get_mfa_policy would, in one request for all.
	what := fmt.Sprintf("MFA policy %s of user %s", m.MfaPolicyID.ValueString(), m.UserID.ValueString())
	out, err := cachedMfaPolicies(ctx, d.pd, m.UserID.ValueString())
	if err != nil {
		addAPIError(diags, "Error reading MFA policy", client.QueryGetMfaPolicies, what, err)
		return
	}
	i := slices.IndexFunc(out.MfaPolicies, func(p client.MfaPolicy) bool { return p.MfaPolicyID == m.MfaPolicyID.ValueString() })
	if i < 0 {
		diags.AddAttributeError(path.Root("mfa_policy_id"), "Error reading MFA policy",
			what+" does not exist: get_mfa_policies does not list it.")
		return
	}
	m.mfaPolicyFieldsModel = mfaPolicyFlatten(out.MfaPolicies[i])
}
