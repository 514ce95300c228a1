package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ importableResource              = &webhookEndpointsExclusiveResource{}
	_ resource.ResourceWithModifyPlan = &webhookEndpointsExclusiveResource{}
)

// NewWebhookEndpointsExclusiveResource is custody_webhook_endpoints_exclusive:
// the organization's webhook endpoints declared whole (exclusive.go).
func NewWebhookEndpointsExclusiveResource() resource.Resource {
	return &webhookEndpointsExclusiveResource{exclusiveResource{
		resourceBase: resourceBase{typeName: "webhook_endpoints_exclusive", identity: organizationIdentity},
		idsAttr:      "endpoint_ids",
		what:         "webhook endpoint",
		query:        client.QueryListWebhookEndpoints,
		deleteOp:     client.OpDeleteWebhookEndpoint.Name,
		removal:      webhookEndpointRemovalType,
		collection:   webhookEndpointCollection,
	}}
}

type webhookEndpointsExclusiveResource struct{ exclusiveResource }

// webhookEndpointRemovalType is an element of removals: where the
// endpoint delivers, and what, so that a reviewer sees which feed stops.
var webhookEndpointRemovalType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "url": types.StringType,
	"subscriptions": types.SetType{ElemType: webhookSubscriptionType},
}}

func (r *webhookEndpointsExclusiveResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: exclusiveDoc(
			"The organization's webhook endpoints, declared whole: `endpoint_ids` lists every endpoint the organization keeps.",
			"Refresh reads the endpoints from the command's one `list_webhook_endpoints` (shared with every "+
				"`custody_webhook_endpoint`), so its state holds every endpoint id the service has.",
			"with one `"+client.OpDeleteWebhookEndpoint.Type+"` each, one after another, since the service deletes one "+
				"endpoint per activity (deliveries to a removed endpoint stop)",
			"webhook endpoints",
			"Import with the organization id: `terraform import custody_webhook_endpoints_exclusive.all <organization id>`."),
		Attributes: r.attributes(ctx,
			"The organization id: the collection is the organization's webhook endpoints. Also the import id.",
			"The ids of every webhook endpoint the organization keeps: reference the `custody_webhook_endpoint` resources "+
				"(`[for e in custody_webhook_endpoint.all : e.id]`), and list by literal id those managed elsewhere.",
			"The endpoints the plan removes: each endpoint whose id `endpoint_ids` does not list, with where it delivers and what.",
			map[string]schema.Attribute{
				"id":   computedString("The endpoint id."),
				"name": computedString("The endpoint's name."),
				"url":  computedString("Where the endpoint delivers."),
				"subscriptions": schema.SetNestedAttribute{
					Computed:            true,
					MarkdownDescription: "The event types delivered to the endpoint.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"event_type": computedString("The event type."),
						"filters_json": schema.StringAttribute{Computed: true, CustomType: jsontypes.NormalizedType{},
							MarkdownDescription: "The JSON object narrowing which events of this type are delivered." + omittedNull},
						"is_active": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether this subscription delivers."},
					}},
				},
			}, client.OpDeleteWebhookEndpoint),
	}
}

// webhookEndpointCollection is the organization's endpoints.
func webhookEndpointCollection(pd *providerData, _ string) exclusiveCollection {
	return exclusiveCollection{
		claim: webhookEndpointsListKey,
		keys:  []string{webhookEndpointsListKey}, // what custody_webhook_endpoint's delete forgets
		list: func(ctx context.Context) ([]exclusiveObject, error) {
			list, err := cachedWebhookEndpoints(ctx, pd)
			if err != nil {
				return nil, err
			}
			out := make([]exclusiveObject, len(list.WebhookEndpoints))
			for i, ep := range list.WebhookEndpoints {
				var m webhookEndpointModel
				var diags diag.Diagnostics
				webhookFlatten(ctx, &m, ep, &diags)
				if diags.HasError() {
					return nil, fmt.Errorf("endpoint %s: %v; this is always a bug in the provider", ep.EndpointID, diags.Errors())
				}
				out[i] = exclusiveObject{id: ep.EndpointID, removal: types.ObjectValueMust(webhookEndpointRemovalType.AttrTypes,
					map[string]attr.Value{"id": m.ID, "name": m.Name, "url": m.URL, "subscriptions": m.Subscriptions})}
			}
			return out, nil
		},
		// The service has no batch delete of endpoints: one activity each,
		// one at a time, an endpoint already gone counting as deleted.
		remove: func(ctx context.Context, timeout time.Duration, ids []string) error {
			for _, id := range ids {
				_, err := submit.Activity(ctx, pd.runner, timeout, (*client.Client).DeleteWebhookEndpoint,
					client.DeleteWebhookEndpointParams{EndpointID: id})
				if err != nil && !errors.Is(err, client.ErrNotFound) {
					return err
				}
			}
			return nil
		},
	}
}
