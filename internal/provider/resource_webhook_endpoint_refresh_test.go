package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// webhookEndpointTestID is the id of the only endpoint in the emulator.
func webhookEndpointTestID(t *testing.T, e *accEmulator) string {
	t.Helper()
	list, err := e.client.ListWebhookEndpoints(context.Background(), client.ListWebhookEndpointsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.WebhookEndpoints) != 1 {
		t.Fatalf("want one webhook endpoint, got %d", len(list.WebhookEndpoints))
	}
	return list.WebhookEndpoints[0].EndpointID
}

func TestAccWebhookEndpoint_drift(t *testing.T) {
	e := newAccEmulator(t)
	ctx := context.Background()
	cfg := webhookEndpointTestConfig(e, `
  url  = "`+webhookEndpointTestURL+`"
  name = "drift"`, webhookEndpointTestSubActivity)
	planUpdate := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionUpdate)},
	}
	accTest(t, resource.TestCase{
		CheckDestroy: webhookEndpointTestDestroyed(e),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// Renamed and moved outside Terraform: changed back in place.
				PreConfig: func() {
					if _, err := e.client.UpdateWebhookEndpoint(ctx, client.UpdateWebhookEndpointParams{
						EndpointID: webhookEndpointTestID(t, e), Name: "elsewhere", URL: "http://127.0.0.1:9/other"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: planUpdate,
				Check:            webhookEndpointTestStored(e, webhookEndpointTestURL, "drift", true),
			},
			{
				// Deactivated outside Terraform: activated again.
				PreConfig: func() {
					off := false
					if _, err := e.client.UpdateWebhookEndpoint(ctx, client.UpdateWebhookEndpointParams{
						EndpointID: webhookEndpointTestID(t, e), IsActive: &off}); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: planUpdate,
				Check:            webhookEndpointTestStored(e, webhookEndpointTestURL, "drift", true),
			},
			{
				// Deleted outside Terraform: created again.
				PreConfig: func() {
					if _, err := e.client.DeleteWebhookEndpoint(ctx, client.DeleteWebhookEndpointParams{EndpointID: webhookEndpointTestID(t, e)}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionCreate)},
				},
				Check: webhookEndpointTestStored(e, webhookEndpointTestURL, "drift", true),
			},
		},
	})
}

// TestAccWebhookEndpoint_refreshListsOnce: refreshing five endpoints costs
// one list_webhook_endpoints query, not five.
func TestAccWebhookEndpoint_refreshListsOnce(t *testing.T) {
	e := newAccEmulator(t)
	var before map[string]int
	accTest(t, resource.TestCase{
		CheckDestroy: webhookEndpointTestDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "custody_webhook_endpoint" "many" {
  count = 5
  url   = "http://127.0.0.1:9/hook/${count.index}"
  name  = "many-${count.index}"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("custody_webhook_endpoint.many[4]", tfjsonpath.New("subscriptions"), knownvalue.SetExact([]knownvalue.Check{})),
				},
			},
			{
				// A RefreshState step runs exactly one `terraform refresh`
				// (one provider configuration, so one list cache) between
				// PreConfig and Check; `terraform show` reads no API. What is
				// counted is the emulator's list_webhook_endpoints queries,
				// as the difference between Check and PreConfig.
				RefreshState: true,
				PreConfig:    func() { before = e.srv.RequestCounts() },
				Check: func(s *terraform.State) error {
					const op = "query/list_webhook_endpoints"
					if n := e.srv.RequestCounts()[op] - before[op]; n != 1 {
						return fmt.Errorf("refreshing 5 endpoints made %d %s requests, want 1", n, op)
					}
					if n := len(s.RootModule().Resources); n != 5 {
						return fmt.Errorf("refreshed state holds %d resources, want 5", n)
					}
					return nil
				},
			},
		},
	})
}
