package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// fakePrivate is private data held in a map.
type fakePrivate map[string][]byte

func (p fakePrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return p[key], nil
}
func (p fakePrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	p[key] = value
	return nil
}

// What a refresh keeps of a webhook endpoint (nested subscriptions, a
// JSON filter) is what the plan reads back, for the ids of the state's
// set; an id with no record (an unreadable one alike) is named by its id
// alone, so that both plans of an apply still agree.
func TestExclusiveFound_roundTrip(t *testing.T) {
	ctx := t.Context()
	r, ok := NewWebhookEndpointsExclusiveResource().(*webhookEndpointsExclusiveResource)
	if !ok {
		t.Fatal("NewWebhookEndpointsExclusiveResource is no *webhookEndpointsExclusiveResource")
	}
	var schema resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &schema)
	on := true
	ep := client.WebhookEndpoint{EndpointID: "ep-1", Name: "feed", URL: "https://hooks.example.com/a", Subscriptions: []client.WebhookSubscription{
		{EventType: "ACTIVITY_UPDATES", FiltersJSON: `{"status":["ACTIVITY_STATUS_FAILED"]}`, IsActive: &on}}}
	var m webhookEndpointModel
	var diags diag.Diagnostics
	webhookFlatten(ctx, &m, ep, &diags)
	feed := types.ObjectValueMust(webhookEndpointRemovalType.AttrTypes,
		map[string]attr.Value{"id": m.ID, "name": m.Name, "url": m.URL, "subscriptions": m.Subscriptions})

	private := fakePrivate{}
	r.keepFound(ctx, []exclusiveObject{{id: "ep-1", removal: feed}}, private, &diags)
	state := tfsdk.State{Schema: schema.Schema, Raw: tftypes.NewValue(schema.Schema.Type().TerraformType(ctx), nil)}
	diags.Append(state.SetAttribute(ctx, path.Root("endpoint_ids"), []string{"ep-2", "ep-1"})...)
	ids, found := r.foundBefore(ctx, state, private, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if len(ids) != 2 || ids[0] != "ep-1" || ids[1] != "ep-2" {
		t.Errorf("ids = %q, want the state's set, sorted", ids)
	}
	got := r.named(ctx, ids, found)
	want := types.ListValueMust(webhookEndpointRemovalType, []attr.Value{feed, types.ObjectValueMust(webhookEndpointRemovalType.AttrTypes,
		map[string]attr.Value{"id": types.StringValue("ep-2"), "name": types.StringNull(), "url": types.StringNull(),
			"subscriptions": types.SetNull(webhookSubscriptionType)})})
	if !got.Equal(want) {
		t.Errorf("removals =\n%s\nwant\n%s", got, want)
	}

	private[exclusiveFoundKey] = []byte(`"not msgpack"`)
	if _, found := r.foundBefore(ctx, state, private, &diags); len(found) != 0 || diags.HasError() {
		t.Errorf("an unreadable record should name nothing, and fail nothing: %v, %v", found, diags)
	}
}
