package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// listResourceFactories lists every list resource the provider serves
// (Terraform 1.14+): each finds its objects here and is otherwise a
// listResource (list_resource.go).
var listResourceFactories = []func() list.ListResource{
	func() list.ListResource {
		return &listResource{typeName: "policy", newResource: NewPolicyResource, objects: listPolicies,
			description: "The organization's policies, from one `list_policies`."}
	},
	func() list.ListResource {
		return &listResource{typeName: "private_key_tag", newResource: NewPrivateKeyTagResource, objects: listPrivateKeyTags,
			description: "The organization's private key tags, from one `list_private_key_tags` and one `list_private_keys`."}
	},
	func() list.ListResource {
		return &listResource{typeName: "webhook_endpoint", newResource: NewWebhookEndpointResource, objects: listWebhookEndpoints,
			description: "The organization's webhook endpoints, from one `list_webhook_endpoints`."}
	},
	func() list.ListResource {
		return &listResource{typeName: "oauth_provider", newResource: NewOauthProviderResource, objects: listOauthProviders,
			description: "The OAuth providers of one user, from one `get_oauth_providers`.",
			attributes: map[string]listschema.Attribute{"user_id": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "The user whose providers to list. Defaults to the user of the provider's API key (`whoami`)."}}}
	},
	func() list.ListResource {
		return &listResource{typeName: "organization_name", newResource: NewOrganizationNameResource, objects: listOrganizationName,
			description: "The name of the organization the provider is configured for: always one result."}
	},
	func() list.ListResource {
		return &listResource{typeName: "ip_allowlist", newResource: NewIPAllowlistResource, objects: listIPAllowlists,
			description: "The IP allowlists the service lets the provider read: the organization's, and the provider's own API " +
				"key's, each when set (the service reads another key's allowlist only by its key)."}
	},
}

// listFailed reports a failed read of a list resource.
func listFailed(diags *diag.Diagnostics, what, operation string, err error) {
	addAPIError(diags, "Error listing "+what, operation, what, err)
}

func listPolicies(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	got, err := cachedPolicies(ctx, pd)
	if err != nil {
		listFailed(diags, "policies", client.QueryListPolicies, err)
		return nil
	}
	found := make([]listedObject, 0, len(got.all))
	for _, p := range got.all {
		found = append(found, listedObject{name: p.PolicyName, id: p.PolicyID, importID: p.PolicyID})
	}
	return found
}

func listPrivateKeyTags(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	got, err := cachedPrivateKeyTags(ctx, pd)
	if err != nil {
		listFailed(diags, "private key tags", client.QueryListPrivateKeyTags, err)
		return nil
	}
	found := make([]listedObject, 0, len(got.PrivateKeyTags))
	for _, tag := range got.PrivateKeyTags {
		found = append(found, listedObject{name: tag.TagName, id: tag.TagID, importID: tag.TagID})
	}
	return found
}

func listWebhookEndpoints(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	got, err := cachedWebhookEndpoints(ctx, pd)
	if err != nil {
		listFailed(diags, "webhook endpoints", client.QueryListWebhookEndpoints, err)
		return nil
	}
	found := make([]listedObject, 0, len(got.WebhookEndpoints))
	for _, ep := range got.WebhookEndpoints {
		found = append(found, listedObject{name: ep.Name, id: ep.EndpointID, importID: ep.EndpointID})
	}
	return found
}

func listOauthProviders(ctx context.Context, pd *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	var userID types.String
	diags.Append(config.GetAttribute(ctx, path.Root("user_id"), &userID)...)
	if diags.HasError() {
		return nil
	}
	user := userID.ValueString()
	if user == "" {
		who, err := pd.client.Identity(ctx)
		if err != nil {
			listFailed(diags, "OAuth providers", client.QueryWhoami, err)
			return nil
		}
		user = who.UserID
	}
	got, err := cachedOauthProviders(ctx, pd, user)
	if err != nil {
		listFailed(diags, "OAuth providers of user "+user, client.QueryGetOauthProviders, err)
		return nil
	}
	found := make([]listedObject, 0, len(got.OauthProviders))
	for _, p := range got.OauthProviders {
		found = append(found, listedObject{name: p.ProviderName, id: p.ProviderID, importID: user + "/" + p.ProviderID})
	}
	return found
}

func listOrganizationName(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	who, err := pd.client.Identity(ctx)
	if err != nil {
		listFailed(diags, "the organization's name", client.QueryWhoami, err)
		return nil
	}
	return []listedObject{{name: who.OrganizationName, id: who.OrganizationID, importID: who.OrganizationID}}
}

func listIPAllowlists(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	var found []listedObject
	for _, key := range []string{"", pd.client.PublicKey()} {
		_, err := pd.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{PublicKey: key})
		switch {
		case errors.Is(err, client.ErrNotFound):
		case err != nil:
			listFailed(diags, ipAllowlistName(key), client.QueryGetIPAllowlist, err)
			return nil
		case key == "":
			found = append(found, listedObject{name: ipAllowlistOrgID, id: ipAllowlistOrgID, importID: ipAllowlistOrgID})
		default:
			found = append(found, listedObject{name: key, id: key, importID: key})
		}
	}
	return found
}
