package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestAccWebhookEndpoint_exclusive walks custody_webhook_endpoints_exclusive
// as TestAccPrivateKeyTag_exclusive walks the tags': the removals name each
// endpoint's URL and subscriptions, and the apply deletes two endpoints
// outside the set, one activity each.
func TestAccWebhookEndpoint_exclusive(t *testing.T) {
	e := newAccEmulator(t)
	const addr = "custody_webhook_endpoints_exclusive.all"
	on, off := true, false
	makeEndpoint := func(name string, subs ...client.WebhookSubscription) string {
		t.Helper()
		out, err := e.client.CreateWebhookEndpoint(t.Context(), client.CreateWebhookEndpointParams{
			URL: "http://127.0.0.1:9/" + name, Name: name, Subscriptions: subs})
		mustNot(t, err)
		return out.Result.EndpointID
	}
	endpoints := func() ([]string, error) {
		out, err := e.client.ListWebhookEndpoints(t.Context(), client.ListWebhookEndpointsRequest{})
		if err != nil {
			return nil, err
		}
		var names []string
		for _, ep := range out.WebhookEndpoints {
			names = append(names, ep.Name)
		}
		return names, nil
	}
	removal := func(id, name string, subs ...knownvalue.Check) knownvalue.Check {
		return removalOf(map[string]any{"id": id, "name": name, "url": "http://127.0.0.1:9/" + name, "subscriptions": knownvalue.SetExact(subs)})
	}
	subscription := func(event, filters string, active bool) knownvalue.Check {
		var f knownvalue.Check = knownvalue.Null()
		if filters != "" {
			f = knownvalue.StringExact(filters)
		}
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"event_type": knownvalue.StringExact(event), "filters_json": f, "is_active": knownvalue.Bool(active)})
	}
	const kept = `
resource "custody_webhook_endpoint" "kept" {
  url  = "http://127.0.0.1:9/kept"
  name = "kept"
}
`
	claim := func(ids string) string {
		return e.config(kept + `
resource "custody_webhook_endpoints_exclusive" "all" {
  endpoint_ids = [` + ids + `]
}
`)
	}
	config := claim("custody_webhook_endpoint.kept.id")
	feed := makeEndpoint("feed",
		client.WebhookSubscription{EventType: "ACTIVITY_UPDATES", FiltersJSON: `{"status":["ACTIVITY_STATUS_FAILED"]}`, IsActive: &on},
		client.WebhookSubscription{EventType: "BALANCE_CONFIRMED_UPDATES", IsActive: &off})
	bare := makeEndpoint("bare")
	var late string

	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: config,
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate,
				expectRemovals(addr, func() []knownvalue.Check {
					want := map[string]knownvalue.Check{
						feed: removal(feed, "feed", subscription("ACTIVITY_UPDATES", `{"status":["ACTIVITY_STATUS_FAILED"]}`, true),
							subscription("BALANCE_CONFIRMED_UPDATES", "", false)),
						bare: removal(bare, "bare"),
					}
					if bare < feed {
						return []knownvalue.Check{want[bare], want[feed]}
					}
					return []knownvalue.Check{want[feed], want[bare]}
				})),
			Check: serviceHolds("endpoints", endpoints, "kept"),
		},
		{
			PreConfig: func() {
				late = makeEndpoint("late", client.WebhookSubscription{EventType: "SEND_TRANSACTION_STATUS_UPDATES", IsActive: &on})
			},
			Config: config,
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate,
				expectRemovals(addr, func() []knownvalue.Check {
					return []knownvalue.Check{removal(late, "late", subscription("SEND_TRANSACTION_STATUS_UPDATES", "", true))}
				})),
			Check: serviceHolds("endpoints", endpoints, "kept"),
		},
		{RefreshState: true}, // removals keeps what the apply removed until a refresh
		{Config: config, ResourceName: addr, ImportState: true, ImportStateVerify: true},
		importByIdentityStep(t, config, addr),
		planFails(claim(`custody_webhook_endpoint.kept.id, "no-such-endpoint"`),
			errorPhrases("No such webhook endpoint", `endpoint_ids lists "no-such-endpoint"`)),
		{
			PreConfig:        func() { makeEndpoint("after") },
			Config:           e.config(kept),
			ConfigPlanChecks: planAction(addr, plancheck.ResourceActionDestroy),
			Check:            serviceHolds("endpoints", endpoints, "after", "kept"),
		},
	}})
}
