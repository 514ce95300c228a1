package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const webhookEndpointAddr = "custody_webhook_endpoint.test"

// webhookEndpointTestURL is a loopback port nothing listens on: the
// emulator's deliveries to it fail harmlessly (and stop after a bounded
// number of retries).
const webhookEndpointTestURL = "http://127.0.0.1:9/hook"

// webhookEndpointTestFilters is written with spaces; the emulator stores the
// text it is sent.
const webhookEndpointTestFilters = `{"activityTypes": ["ACTIVITY_TYPE_CREATE_POLICY_V3"], "minAmount": 1}`

// webhookEndpointTestConfig is one endpoint with the given attribute lines
// and subscriptions (HCL object expressions).
func webhookEndpointTestConfig(e *accEmulator, attrs string, subs ...string) string {
	return e.config(fmt.Sprintf(`
resource "custody_webhook_endpoint" "test" {
%s
  subscriptions = [%s]
}
`, attrs, strings.Join(subs, ",\n    ")))
}

// webhookEndpointTestSubActivity is an ACTIVITY_UPDATES subscription with
// webhookEndpointTestFilters, spaces included.
var webhookEndpointTestSubActivity = fmt.Sprintf(`{ event_type = "ACTIVITY_UPDATES", filters_json = %q }`, webhookEndpointTestFilters)

const webhookEndpointTestSubBalance = `{ event_type = "BALANCE_CONFIRMED_UPDATES", is_active = false }`

func webhookEndpointTestSub(eventType string, filters, active knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"event_type": knownvalue.StringExact(eventType), "filters_json": filters, "is_active": active})
}

// webhookEndpointTestGet returns the endpoint of the state's resource as
// the service stores it.
func webhookEndpointTestGet(e *accEmulator, s *terraform.State) (*client.WebhookEndpoint, error) {
	rs, ok := s.RootModule().Resources[webhookEndpointAddr]
	if !ok {
		return nil, fmt.Errorf("%s not in state", webhookEndpointAddr)
	}
	list, err := e.client.ListWebhookEndpoints(context.Background(), client.ListWebhookEndpointsRequest{})
	if err != nil {
		return nil, err
	}
	for i := range list.WebhookEndpoints {
		if list.WebhookEndpoints[i].EndpointID == rs.Primary.ID {
			return &list.WebhookEndpoints[i], nil
		}
	}
	return nil, fmt.Errorf("endpoint %s not in list_webhook_endpoints", rs.Primary.ID)
}

// webhookEndpointTestStored checks the stored url, name and is_active.
func webhookEndpointTestStored(e *accEmulator, url, name string, active bool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		ep, err := webhookEndpointTestGet(e, s)
		if err != nil {
			return err
		}
		if ep.URL != url || ep.Name != name || ep.IsActive != active {
			return fmt.Errorf("stored url=%q name=%q is_active=%v, want %q %q %v", ep.URL, ep.Name, ep.IsActive, url, name, active)
		}
		return nil
	}
}

// webhookEndpointTestDestroyed is a CheckDestroy: no endpoint is left.
func webhookEndpointTestDestroyed(e *accEmulator) resource.TestCheckFunc {
	return func(*terraform.State) error {
		list, err := e.client.ListWebhookEndpoints(context.Background(), client.ListWebhookEndpointsRequest{})
		if err != nil {
			return err
		}
		if len(list.WebhookEndpoints) != 0 {
			return fmt.Errorf("webhook endpoints left after destroy: %+v", list.WebhookEndpoints)
		}
		return nil
	}
}

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

func TestAccWebhookEndpoint_basic(t *testing.T) {
	e := newAccEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	v1 := webhookEndpointTestConfig(e, `
  url  = "`+webhookEndpointTestURL+`"
  name = "alerts"`, webhookEndpointTestSubActivity, webhookEndpointTestSubBalance)
	v2 := webhookEndpointTestConfig(e, `
  url       = "http://127.0.0.1:9/hook2"
  name      = "alerts-renamed"
  is_active = false`, webhookEndpointTestSubActivity, webhookEndpointTestSubBalance)
	// v3 changes one subscription (BALANCE_CONFIRMED_UPDATES is now active),
	// which the service can only do with a new endpoint.
	v3 := webhookEndpointTestConfig(e, `
  url       = "http://127.0.0.1:9/hook2"
  name      = "alerts-renamed"
  is_active = false`, webhookEndpointTestSubActivity, `{ event_type = "BALANCE_CONFIRMED_UPDATES" }`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             webhookEndpointTestDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config: v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^\S+$`))),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("url"), knownvalue.StringExact(webhookEndpointTestURL)),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("name"), knownvalue.StringExact("alerts")),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("is_active"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("subscriptions"), knownvalue.SetExact([]knownvalue.Check{
						// The configured spelling, spaces included.
						webhookEndpointTestSub("ACTIVITY_UPDATES", knownvalue.StringExact(webhookEndpointTestFilters), knownvalue.Bool(true)),
						webhookEndpointTestSub("BALANCE_CONFIRMED_UPDATES", knownvalue.Null(), knownvalue.Bool(false)),
					})),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("timeouts"), knownvalue.Null()),
					sameID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id")),
				},
				Check: webhookEndpointTestStored(e, webhookEndpointTestURL, "alerts", true),
			},
			{
				// url, name and is_active change in place.
				Config: v2,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("url"), knownvalue.StringExact("http://127.0.0.1:9/hook2")),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("name"), knownvalue.StringExact("alerts-renamed")),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("is_active"), knownvalue.Bool(false)),
					sameID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id")),
					newID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id")),
				},
				Check: webhookEndpointTestStored(e, "http://127.0.0.1:9/hook2", "alerts-renamed", false),
			},
			{
				// A subscription change replaces the endpoint; the new one is
				// created inactive (create, then an update deactivating it).
				Config: v3,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionDestroyBeforeCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("is_active"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("subscriptions"), knownvalue.SetExact([]knownvalue.Check{
						webhookEndpointTestSub("ACTIVITY_UPDATES", knownvalue.StringExact(webhookEndpointTestFilters), knownvalue.Bool(true)),
						webhookEndpointTestSub("BALANCE_CONFIRMED_UPDATES", knownvalue.Null(), knownvalue.Bool(true)),
					})),
					newID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					webhookEndpointTestStored(e, "http://127.0.0.1:9/hook2", "alerts-renamed", false),
					webhookEndpointTestDestroyedAllBut(e, 1),
				),
			},
			{ResourceName: webhookEndpointAddr, ImportState: true, ImportStateVerify: true},
			{
				ResourceName: webhookEndpointAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithID,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionNoop),
					plancheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("name"), knownvalue.StringExact("alerts-renamed")),
					plancheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("subscriptions"), knownvalue.SetSizeExact(2)),
				}},
			},
		},
	})
}

// webhookEndpointTestDestroyedAllBut checks the service holds n endpoints:
// a replacement deletes the old endpoint.
func webhookEndpointTestDestroyedAllBut(e *accEmulator, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		list, err := e.client.ListWebhookEndpoints(context.Background(), client.ListWebhookEndpointsRequest{})
		if err != nil {
			return err
		}
		if len(list.WebhookEndpoints) != n {
			return fmt.Errorf("service holds %d webhook endpoints, want %d", len(list.WebhookEndpoints), n)
		}
		return nil
	}
}

// TestAccWebhookEndpoint_filtersComparedAsJSON imports an endpoint created
// outside Terraform whose stored filters_json is the configured JSON
// written differently (no spaces, other key order). Compared as text, the
// subscriptions would differ and, since they force replacement, the import
// would plan to destroy the endpoint; compared as JSON, nothing changes.
func TestAccWebhookEndpoint_filtersComparedAsJSON(t *testing.T) {
	e := newAccEmulator(t)
	on := true
	out, err := e.client.CreateWebhookEndpoint(context.Background(), client.CreateWebhookEndpointParams{
		URL: webhookEndpointTestURL, Name: "adopted",
		Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES", IsActive: &on,
			FiltersJSON: `{"minAmount":1,"activityTypes":["ACTIVITY_TYPE_CREATE_POLICY_V3"]}`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := webhookEndpointTestConfig(e, `
  url  = "`+webhookEndpointTestURL+`"
  name = "adopted"`, webhookEndpointTestSubActivity)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             webhookEndpointTestDestroyed(e),
		Steps: []resource.TestStep{
			{
				// An import block in the configuration, so that the
				// imported state stays for the next step.
				Config: cfg + fmt.Sprintf(`
import {
  to = %s
  id = %q
}
`, webhookEndpointAddr, out.Result.EndpointID),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionNoop)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("id"), knownvalue.StringExact(out.Result.EndpointID)),
				},
			},
			{
				// Refreshing it against the spaced configuration plans
				// nothing either.
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
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
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             webhookEndpointTestDestroyed(e),
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

func TestAccWebhookEndpoint_validation(t *testing.T) {
	e := newAccEmulator(t)
	attrs := func(url string) string {
		return fmt.Sprintf("  url  = %q\n  name = \"v\"", url)
	}
	ok := attrs(webhookEndpointTestURL)
	step := func(cfg, want string) resource.TestStep {
		return resource.TestStep{Config: cfg, PlanOnly: true, ExpectError: regexp.MustCompile(want)}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(webhookEndpointTestConfig(e, attrs("ftp://example.com/hook")), `has the scheme "ftp"`),
			step(webhookEndpointTestConfig(e, attrs("https://")), `has no host`),
			step(webhookEndpointTestConfig(e, attrs("example.com/hook")), `has no scheme`),
			step(webhookEndpointTestConfig(e, "  url  = \""+webhookEndpointTestURL+"\"\n  name = \"\""), `(?s)name.*string length must be between 1 and 256`),
			step(webhookEndpointTestConfig(e, ok, `{ event_type = "EVERYTHING" }`), `(?s)event_type.*value must be one of`),
			step(webhookEndpointTestConfig(e, ok, `{ event_type = "ACTIVITY_UPDATES", filters_json = "[1, 2]" }`), `(?s)filters_json.*not an object`),
			step(webhookEndpointTestConfig(e, ok, `{ event_type = "ACTIVITY_UPDATES" }`, `{ event_type = "ACTIVITY_UPDATES", is_active = false }`),
				`Duplicate webhook subscription`),
		},
	})
	for op := range e.srv.RequestCounts() {
		if strings.HasPrefix(op, "submit/") {
			t.Errorf("a plan with invalid configuration submitted %s", op)
		}
	}
}

// TestAccWebhookEndpoint_refreshListsOnce: refreshing five endpoints costs
// one list_webhook_endpoints query, not five.
func TestAccWebhookEndpoint_refreshListsOnce(t *testing.T) {
	e := newAccEmulator(t)
	var before map[string]int
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             webhookEndpointTestDestroyed(e),
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
