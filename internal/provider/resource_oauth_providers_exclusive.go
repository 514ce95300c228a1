package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ importableResource              = &oauthProvidersExclusiveResource{}
	_ resource.ResourceWithModifyPlan = &oauthProvidersExclusiveResource{}
)

// NewOauthProvidersExclusiveResource is custody_oauth_providers_exclusive:
// one user's OAuth providers declared whole (exclusive.go). The service
// lists and deletes providers by user, so the collection is a user's.
func NewOauthProvidersExclusiveResource() resource.Resource {
	return &oauthProvidersExclusiveResource{exclusiveResource{
		resourceBase: resourceBase{typeName: "oauth_providers_exclusive", identity: userCollectionIdentity},
		idsAttr:      "provider_ids",
		scopeAttr:    "user_id",
		what:         "OAuth provider",
		query:        client.QueryGetOauthProviders,
		deleteOp:     client.OpDeleteOauthProviders.Name,
		removal:      oauthProviderRemovalType,
		collection:   oauthProviderCollection,
	}}
}

type oauthProvidersExclusiveResource struct{ exclusiveResource }

// oauthProviderRemovalType is an element of removals: the provider and the
// tokens it accepts, so that a reviewer sees which sign-in stops working.
var oauthProviderRemovalType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "issuer": types.StringType, "audience": types.StringType, "subject": types.StringType,
}}

func (r *oauthProvidersExclusiveResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := r.attributes(ctx,
		"The user id (`user_id`): the collection is that user's OAuth providers. Also the import id.",
		"The ids of every OAuth provider the user keeps: reference the `custody_oauth_provider` resources of the user "+
			"(`[for p in custody_oauth_provider.all : p.id]`), and list by literal id those managed elsewhere.",
		"The providers the plan removes: each provider of the user whose id `provider_ids` does not list, with the tokens it accepts.",
		map[string]schema.Attribute{
			"id":       computedString("The provider id."),
			"name":     computedString("The provider's name."),
			"issuer":   computedString("The token issuer (`iss`)."),
			"audience": computedString("The expected `aud` of tokens."),
			"subject":  computedString("The expected `sub` of tokens."),
		}, client.OpDeleteOauthProviders)
	attrs["user_id"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "The user whose OAuth providers the resource declares whole; the user must exist. Changing it " +
			"replaces the resource: the claim on the old user's providers ends (none is deleted), and the new user's " +
			"are planned as at creation.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:    []validator.String{notBlank()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: exclusiveDoc(
			"One user's OAuth (OIDC) providers, declared whole: `provider_ids` lists every provider the user `user_id` keeps.",
			"Refresh reads the providers from the command's one `get_oauth_providers` of the user (shared with every "+
				"`custody_oauth_provider` of the user), so its state holds every provider id the service has for them; a user "+
				"gone ends the claim.",
			"in one `"+client.OpDeleteOauthProviders.Type+"` for the user (the tokens of a removed provider no longer "+
				"sign the user in)",
			"OAuth providers",
			"Import with the user id: `terraform import custody_oauth_providers_exclusive.ops <user id>`."),
		Attributes: attrs,
	}
}

// oauthProviderCollection is the providers of the user userID.
func oauthProviderCollection(pd *providerData, userID string) exclusiveCollection {
	key := oauthProviderListKey(userID)
	return exclusiveCollection{
		claim: key,
		keys:  []string{key}, // what custody_oauth_provider's delete forgets
		list: func(ctx context.Context) ([]exclusiveObject, error) {
			list, err := cachedOauthProviders(ctx, pd, userID)
			if err != nil {
				return nil, err
			}
			out := make([]exclusiveObject, len(list.OauthProviders))
			for i, p := range list.OauthProviders {
				out[i] = exclusiveObject{id: p.ProviderID, removal: types.ObjectValueMust(oauthProviderRemovalType.AttrTypes, map[string]attr.Value{
					"id": types.StringValue(p.ProviderID), "name": types.StringValue(p.ProviderName), "issuer": types.StringValue(p.Issuer),
					"audience": types.StringValue(p.Audience), "subject": types.StringValue(p.Subject),
				})}
			}
			return out, nil
		},
		remove: func(ctx context.Context, timeout time.Duration, ids []string) error {
			_, err := submit.Activity(ctx, pd.runner, timeout, (*client.Client).DeleteOauthProviders,
				client.DeleteOauthProvidersParams{UserID: userID, ProviderIDs: ids})
			return err
		},
	}
}
