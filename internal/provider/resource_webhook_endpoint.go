package provider

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var _ importableResource = &webhookEndpointResource{}

// webhookEndpointsListKey caches *client.ListWebhookEndpointsResponse.
const webhookEndpointsListKey = "webhook_endpoints"

// webhookEventTypes are the event types an endpoint can subscribe to.
var webhookEventTypes = []string{"ACTIVITY_UPDATES", "BALANCE_CONFIRMED_UPDATES", "BALANCE_FINALIZED_UPDATES", "SEND_TRANSACTION_STATUS_UPDATES"}

// NewWebhookEndpointResource is the custody_webhook_endpoint resource.
func NewWebhookEndpointResource() resource.Resource {
	return &webhookEndpointResource{resourceBase{typeName: "webhook_endpoint", identity: idIdentity("webhook endpoint")}}
}

type webhookEndpointResource struct{ resourceBase }

type webhookEndpointModel struct {
	ID            types.String `tfsdk:"id"`
	URL           types.String `tfsdk:"url"`
	Name          types.String `tfsdk:"name"`
	IsActive      types.Bool   `tfsdk:"is_active"`
	Subscriptions types.Set    `tfsdk:"subscriptions"`
	resourceTimeouts
}

type webhookSubscriptionModel struct {
	EventType   types.String         `tfsdk:"event_type"`
	FiltersJSON jsontypes.Normalized `tfsdk:"filters_json"`
	IsActive    types.Bool           `tfsdk:"is_active"`
}

var webhookSubscriptionType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"event_type":   types.StringType,
	"filters_json": jsontypes.NormalizedType{},
	"is_active":    types.BoolType,
}}

func (r *webhookEndpointResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	to := timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
		CreateDescription: "How long to wait for `" + client.OpCreateWebhookEndpoint.Type + "` (and the update that deactivates a new endpoint created with `is_active = false`)" + waitConsensus,
		UpdateDescription: waitFor(client.OpUpdateWebhookEndpoint),
		DeleteDescription: waitFor(client.OpDeleteWebhookEndpoint),
	}, "How long create, update and delete wait for their activities, approvals included.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "A webhook endpoint: a URL the service delivers events to, and the event types it subscribes to. " +
			"Deliveries are signed with Ed25519; verify them with the service's webhook key set.\n\n" +
			"Create submits `" + client.OpCreateWebhookEndpoint.Type + "` (new endpoints start active; with `is_active = false` an " +
			"`" + client.OpUpdateWebhookEndpoint.Type + "` follows to deactivate it). `url`, `name` and `is_active` change in place " +
			"with `" + client.OpUpdateWebhookEndpoint.Type + "`, which sends only the changed fields. The service cannot change " +
			"subscriptions in place, so **any change of `subscriptions` replaces the endpoint** (a new id; deliveries in between " +
			"are lost). Delete submits `" + client.OpDeleteWebhookEndpoint.Type + "`. Any of them may need approvals by other users " +
			"(see `timeouts`).\n\n" +
			"Refresh reads `list_webhook_endpoints` once per Terraform command, however many endpoints there are. A rename, URL " +
			"change or deactivation outside Terraform shows as an update; an endpoint deleted outside Terraform is planned for " +
			"creation.\n\n" +
			"Import with the endpoint id: `terraform import custody_webhook_endpoint.example <endpoint id>`.",
		Attributes: map[string]schema.Attribute{
			"id": idAttribute("The endpoint id (`endpointId`), assigned by the service; also the import id."),
			"url": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Where deliveries are sent: an absolute `http` or `https` URL with a host, at most " +
					strconv.Itoa(client.MaxWebhookURLBytes) + " bytes (checked at plan). The real service requires a public HTTPS " +
					"URL; plain `http` and loopback hosts work only with the local emulator. Changed in place.",
				Validators: []validator.String{maxBytesText(client.MaxWebhookURLBytes), validURL()},
			},
			"name": nameAttribute("The endpoint's name: 1 to 256 bytes, not only spaces. Changed in place."),
			"is_active": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "Whether the service delivers to the endpoint at all (default `true`). Changed in place.",
			},
			"subscriptions": schema.SetNestedAttribute{
				Optional: true,
				Computed: true,
				// Empty rather than null when left out, matching what
				// refresh reads for an endpoint without subscriptions.
				Default: setdefault.StaticValue(types.SetValueMust(webhookSubscriptionType, []attr.Value{})),
				MarkdownDescription: "The event types delivered to the endpoint, each at most once. **Changing this replaces the " +
					"endpoint**: the service cannot change subscriptions in place.",
				PlanModifiers: []planmodifier.Set{webhookSubscriptionsKeepEquivalent, setplanmodifier.RequiresReplace()},
				Validators:    []validator.Set{webhookUniqueEventTypes},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"event_type": schema.StringAttribute{
						Required: true,
						MarkdownDescription: "The event type: `ACTIVITY_UPDATES`, `BALANCE_CONFIRMED_UPDATES`, " +
							"`BALANCE_FINALIZED_UPDATES` or `SEND_TRANSACTION_STATUS_UPDATES`.",
						Validators: []validator.String{oneOf(webhookEventTypes...)},
					},
					"filters_json": schema.StringAttribute{
						CustomType: jsontypes.NormalizedType{},
						Optional:   true,
						MarkdownDescription: "A JSON object narrowing which events of this type are delivered, e.g. " +
							"`jsonencode({...})`. Compared as JSON, not as text: spacing and key order make no difference.",
						Validators: []validator.String{validJSONObject()},
					},
					"is_active": schema.BoolAttribute{
						Optional:            true,
						Computed:            true,
						Default:             booldefault.StaticBool(true),
						MarkdownDescription: "Whether this subscription delivers (default `true`).",
					},
				}},
			},
			"timeouts": to,
		},
	}
}

func (r *webhookEndpointResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan webhookEndpointModel
	timeout, ok := r.readTimed(ctx, req.Plan, &plan, timeouts.Value.Create, &resp.Diagnostics)
	if !ok {
		return
	}
	subs := webhookExpandSubscriptions(ctx, plan.Subscriptions, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	params := client.CreateWebhookEndpointParams{URL: plan.URL.ValueString(), Name: plan.Name.ValueString(), Subscriptions: subs}
	out, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).CreateWebhookEndpoint, params)
	r.pd.lists.Forget(webhookEndpointsListKey)
	if createFailed(ctx, err, 0, req.Plan, resp, "Error creating webhook endpoint", client.OpCreateWebhookEndpoint.Name, "webhook endpoint "+plan.Name.String()) {
		return
	}
	ep := out.Result.WebhookEndpoint
	ep.EndpointID = out.Result.EndpointID
	tflog.Info(ctx, "created webhook endpoint", map[string]any{"endpoint_id": ep.EndpointID, "activity_id": out.Activity.ID})
	if !plan.IsActive.ValueBool() && ep.IsActive {
		// Created endpoints start active; the create intent has no
		// isActive. Save the endpoint first, so that a failed deactivation
		// leaves it in state (to be retried as an update) instead of lost.
		webhookFlatten(ctx, &plan, ep, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		if resp.Diagnostics.HasError() {
			return
		}
		off := false
		upd := client.UpdateWebhookEndpointParams{EndpointID: ep.EndpointID, IsActive: &off}
		uout, err := r.update(ctx, timeout, upd)
		if err != nil {
			addAPIError(&resp.Diagnostics, "Error deactivating new webhook endpoint", client.OpUpdateWebhookEndpoint.Name, "webhook endpoint "+ep.EndpointID, err)
			return
		}
		ep = uout.Result.WebhookEndpoint
		ep.EndpointID = uout.Result.EndpointID
	}
	webhookFlatten(ctx, &plan, ep, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// webhookEndpointCreatedID is the id of the endpoint a
// create_webhook_endpoint activity made.
var webhookEndpointCreatedID = client.CreatedID(client.ItemShape{Op: client.OpCreateWebhookEndpoint},
	func(r client.WebhookEndpointResult) []string { return []string{r.EndpointID} })

// cachedWebhookEndpoints lists the organization's webhook endpoints once
// per command, for every custody_webhook_endpoint and custody_import_blocks
// (see percommand.Lists).
func cachedWebhookEndpoints(ctx context.Context, pd *providerData) (*client.ListWebhookEndpointsResponse, error) {
	return percommand.List(ctx, pd.lists, webhookEndpointsListKey, func(ctx context.Context) (*client.ListWebhookEndpointsResponse, error) {
		return pd.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
	})
}

func (r *webhookEndpointResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if !readLostCreate(ctx, r.pd, req, resp, client.OpCreateWebhookEndpoint, webhookEndpointCreatedID) {
		return
	}
	refreshState(ctx, resp, func(m *webhookEndpointModel, diags *diag.Diagnostics) bool {
		id := m.ID.ValueString()
		list, err := cachedWebhookEndpoints(ctx, r.pd)
		if err != nil {
			addAPIError(diags, "Error reading webhook endpoint", client.QueryListWebhookEndpoints, "webhook endpoint "+id, err)
			return false
		}
		i := slices.IndexFunc(list.WebhookEndpoints, func(ep client.WebhookEndpoint) bool { return ep.EndpointID == id })
		if i < 0 {
			tflog.Warn(ctx, "webhook endpoint not found; removing it from state", map[string]any{"endpoint_id": id})
			return false
		}
		webhookFlatten(ctx, m, list.WebhookEndpoints[i], diags)
		return true
	})
}

func (r *webhookEndpointResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	updateFrame(ctx, &r.resourceBase, req, resp, func(plan, state *webhookEndpointModel, timeout time.Duration, diags *diag.Diagnostics) {
		id := state.ID.ValueString()
		// Only what changed: an empty url or name, and a nil isActive, mean
		// "unchanged" to the service.
		params := client.UpdateWebhookEndpointParams{EndpointID: id}
		if !plan.URL.Equal(state.URL) {
			params.URL = plan.URL.ValueString()
		}
		if !plan.Name.Equal(state.Name) {
			params.Name = plan.Name.ValueString()
		}
		if !plan.IsActive.Equal(state.IsActive) {
			v := plan.IsActive.ValueBool()
			params.IsActive = &v
		}
		plan.ID = state.ID
		if params.URL == "" && params.Name == "" && params.IsActive == nil {
			return // only timeouts changed
		}
		out, err := r.update(ctx, timeout, params)
		if err != nil {
			addAPIError(diags, "Error updating webhook endpoint", client.OpUpdateWebhookEndpoint.Name, "webhook endpoint "+id, err)
			return
		}
		ep := out.Result.WebhookEndpoint
		ep.EndpointID = out.Result.EndpointID
		webhookFlatten(ctx, plan, ep, diags)
	})
}

// update submits one update_webhook_endpoint and drops the cached list.
func (r *webhookEndpointResource) update(ctx context.Context, timeout time.Duration, params client.UpdateWebhookEndpointParams) (*client.Submitted[client.WebhookEndpointResult], error) {
	out, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).UpdateWebhookEndpoint, params)
	r.pd.lists.Forget(webhookEndpointsListKey)
	if err == nil {
		tflog.Info(ctx, "updated webhook endpoint", map[string]any{"endpoint_id": params.EndpointID, "activity_id": out.Activity.ID})
	}
	return out, err
}

func (r *webhookEndpointResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state webhookEndpointModel
	timeout, ok := r.readTimed(ctx, req.State, &state, timeouts.Value.Delete, &resp.Diagnostics)
	if !ok {
		return
	}
	id, ok := deleteLostCreate(ctx, r.pd, resp, client.OpCreateWebhookEndpoint, state.ID.ValueString(), webhookEndpointCreatedID)
	if !ok {
		return
	}
	deleteByActivity(ctx, r.pd, timeout, (*client.Client).DeleteWebhookEndpoint, client.DeleteWebhookEndpointParams{EndpointID: id},
		client.OpDeleteWebhookEndpoint, "webhook endpoint "+id, "Error deleting webhook endpoint", &resp.Diagnostics, webhookEndpointsListKey)
}

// webhookExpandSubscriptions turns the planned set into API parameters,
// sorted by event type so that the intent does not depend on set order.
// filters_json is sent as written.
func webhookExpandSubscriptions(ctx context.Context, set types.Set, diags *diag.Diagnostics) []client.WebhookSubscription {
	var subs []webhookSubscriptionModel
	if set.IsNull() || set.IsUnknown() {
		return nil
	}
	diags.Append(set.ElementsAs(ctx, &subs, false)...)
	out := make([]client.WebhookSubscription, 0, len(subs))
	for _, s := range subs {
		active := s.IsActive.IsNull() || s.IsActive.IsUnknown() || s.IsActive.ValueBool()
		out = append(out, client.WebhookSubscription{EventType: s.EventType.ValueString(), FiltersJSON: s.FiltersJSON.ValueString(), IsActive: &active})
	}
	slices.SortFunc(out, func(a, b client.WebhookSubscription) int {
		switch {
		case a.EventType < b.EventType:
			return -1
		case a.EventType > b.EventType:
			return 1
		}
		return 0
	})
	return out
}

// webhookFlatten sets m from an endpoint as the service returned it.
// filters_json keeps the service's text; jsontypes.Normalized's semantic
// equality keeps the configured spelling when the two are the same JSON.
func webhookFlatten(_ context.Context, m *webhookEndpointModel, ep client.WebhookEndpoint, diags *diag.Diagnostics) {
	m.ID = types.StringValue(ep.EndpointID)
	m.URL = types.StringValue(ep.URL)
	m.Name = types.StringValue(ep.Name)
	m.IsActive = types.BoolValue(ep.IsActive)
	elems := make([]attr.Value, 0, len(ep.Subscriptions))
	for _, s := range ep.Subscriptions {
		filters := jsontypes.NewNormalizedNull()
		if s.FiltersJSON != "" {
			filters = jsontypes.NewNormalizedValue(s.FiltersJSON)
		}
		obj, d := types.ObjectValue(webhookSubscriptionType.AttrTypes, map[string]attr.Value{
			"event_type":   types.StringValue(s.EventType),
			"filters_json": filters,
			"is_active":    types.BoolValue(s.IsActive == nil || *s.IsActive), // absent means the default, true
		})
		diags.Append(d...)
		elems = append(elems, obj)
	}
	set, d := types.SetValue(webhookSubscriptionType, elems)
	diags.Append(d...)
	m.Subscriptions = set
}
