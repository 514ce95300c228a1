package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewOauthProvidersDataSource is the custody_oauth_providers data source.
func NewOauthProvidersDataSource() datasource.DataSource {
	return newDataSource("oauth_providers", oauthProvidersSchema(), readOauthProviders)
}

type oauthProvidersModel struct {
	UserID    types.String              `tfsdk:"user_id"`
	Providers []oauthProvidersItemModel `tfsdk:"providers"`
}

// oauthProvidersItemModel is one item of providers.
type oauthProvidersItemModel struct {
	ProviderID   types.String      `tfsdk:"provider_id"`
	ProviderName types.String      `tfsdk:"provider_name"`
	Issuer       types.String      `tfsdk:"issuer"`
	Audience     types.String      `tfsdk:"audience"`
	Subject      types.String      `tfsdk:"subject"`
	CreatedAt    timetypes.RFC3339 `tfsdk:"created_at"`
	UpdatedAt    timetypes.RFC3339 `tfsdk:"updated_at"`
}

// oauthProvidersUserID refuses an empty user id: the client leaves "" out
// of the request, which would silently list the caller's providers instead.
var oauthProvidersUserID = noSpaces("a user id (omit user_id for the user of the provider's API key)")

// oauthProvidersItemAttributes are the attributes of one provider.
func oauthProvidersItemAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"provider_id":   computedString("The provider's id, assigned by the service."),
		"provider_name": computedString("The provider's name, e.g. `google`."),
		"issuer":        computedString("The issuer (`iss`) of the tokens the provider accepts: the authentication server's URL."),
		"audience":      computedString("The expected audience (`aud`) of the tokens: the application's client id."),
		"subject":       computedString("The expected subject (`sub`) of the tokens: the user's id at the issuer."),
		"created_at":    computedTimestamp("When the provider was added, RFC 3339 (UTC)."),
		"updated_at":    computedTimestamp("When the provider was last changed, RFC 3339 (UTC)."),
	}
}

func oauthProvidersSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The OAuth (OIDC) providers of one user (`get_oauth_providers`): the token issuers, audiences " +
			"and subjects the user can authenticate with, in the service's order. Manage them with `custody_oauth_provider`.",
		Attributes: map[string]schema.Attribute{
			"user_id": optionalArgument("The user whose providers to list. Omit it for the user that owns the provider's API key. "+
				"An unknown user is an error.", oauthProvidersUserID),
			"providers": computedList("The user's providers, in the service's order; empty when there are none.",
				oauthProvidersItemAttributes()),
		},
	}
}

// oauthProvidersFlatten converts the service's providers (a user without
// providers has an empty list).
func oauthProvidersFlatten(in []client.OauthProvider) []oauthProvidersItemModel {
	return listOf(in, func(p client.OauthProvider) oauthProvidersItemModel {
		return oauthProvidersItemModel{
			ProviderID:   types.StringValue(p.ProviderID),
			ProviderName: types.StringValue(p.ProviderName),
			Issuer:       types.StringValue(p.Issuer),
			Audience:     types.StringValue(p.Audience),
			Subject:      types.StringValue(p.Subject),
			CreatedAt:    timestampValue(p.CreatedAt),
			UpdatedAt:    timestampValue(p.UpdatedAt),
		}
	})
}

func readOauthProviders(ctx context.Context, d *dataSourceBase, m *oauthProvidersModel, diags *diag.Diagnostics) {
	user := m.UserID.ValueString()
	// Shared with the user's custody_oauth_provider resources: one request
	// per user per command.
	out, err := cachedOauthProviders(ctx, d.pd, user)
	if err != nil {
		who := "user " + user
		if user == "" {
			who = "the user of the provider's API key"
		}
		addAPIError(diags, "Error reading OAuth providers", client.QueryGetOauthProviders, who, err)
		return
	}
	m.Providers = oauthProvidersFlatten(out.OauthProviders)
}
