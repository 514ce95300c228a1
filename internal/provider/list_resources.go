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

// listedOr is the objects of a list read that failed with err or else
// gave them, a failure reported in diags.
func listedOr(diags *diag.Diagnostics, what, operation string, err error, objects func() []listedObject) []listedObject {
	if err != nil {
		listFailed(diags, what, operation, err)
		return nil
	}
	return objects()
}

// listedEach is one listedObject per item.
func listedEach[T any](items []T, object func(T) listedObject) []listedObject {
	found := make([]listedObject, 0, len(items))
	for _, item := range items {
		found = append(found, object(item))
	}
	return found
}

func listPolicies(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	got, err := cachedPolicies(ctx, pd)
	return listedOr(diags, "policies", client.QueryListPolicies, err, func() []listedObject {
		return listedEach(got.all, func(p client.Policy) listedObject { return listedObject{p.PolicyName, p.PolicyID, p.PolicyID} })
	})
}

func listPrivateKeyTags(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	got, err := cachedPrivateKeyTags(ctx, pd)
	return listedOr(diags, "private key tags", client.QueryListPrivateKeyTags, err, func() []listedObject {
		return listedEach(got.PrivateKeyTags, func(tag client.Tag) listedObject { return listedObject{tag.TagName, tag.TagID, tag.TagID} })
	})
}

func listWebhookEndpoints(ctx context.Context, pd *providerData, _ tfsdk.Config, diags *diag.Diagnostics) []listedObject {
	got, err := cachedWebhookEndpoints(ctx, pd)
	return listedOr(diags, "webhook endpoints", client.QueryListWebhookEndpoints, err, func() []listedObject {
		return listedEach(got.WebhookEndpoints, func(ep client.WebhookEndpoint) listedObject {
			return listedObject{ep.Name, ep.EndpointID, ep.EndpointID}
		})
	})
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
	return listedOr(diags, "OAuth providers of user "+user, client.QueryGetOauthProviders, err, func() []listedObject {
		return listedEach(got.OauthProviders, func(p client.OauthProvider) listedObject {
			return listedObject{p.ProviderName, p.ProviderID, user + "/" + p.ProviderID}
		})
	})
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
