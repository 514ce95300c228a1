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
	return webhookEndpointTestHolds(e, 0)
}

// webhookEndpointTestHolds checks the service holds n endpoints: a
// replacement deletes the old endpoint, a destroy all of them.
func webhookEndpointTestHolds(e *accEmulator, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		list, err := e.client.ListWebhookEndpoints(context.Background(), client.ListWebhookEndpointsRequest{})
		if err != nil {
			return err
		}
		if len(list.WebhookEndpoints) != n {
			return fmt.Errorf("service holds %d webhook endpoints, want %d: %+v", len(list.WebhookEndpoints), n, list.WebhookEndpoints)
		}
		return nil
	}
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
	accTest(t, resource.TestCase{
		CheckDestroy: webhookEndpointTestDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config:           v1,
				ConfigPlanChecks: expectAction(webhookEndpointAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(webhookEndpointAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(accNonBlank)),
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
				Config:           v2,
				ConfigPlanChecks: expectAction(webhookEndpointAddr, plancheck.ResourceActionUpdate),
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
				Config:           v3,
				ConfigPlanChecks: expectAction(webhookEndpointAddr, plancheck.ResourceActionDestroyBeforeCreate),
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
					webhookEndpointTestHolds(e, 1),
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
	accTest(t, resource.TestCase{
		CheckDestroy: webhookEndpointTestDestroyed(e),
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
				ConfigPlanChecks: expectAction(webhookEndpointAddr, plancheck.ResourceActionNoop),
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

func TestAccWebhookEndpoint_validation(t *testing.T) {
	e := newAccEmulator(t)
	attrs := func(url string) string {
		return fmt.Sprintf("  url  = %q\n  name = \"v\"", url)
	}
	ok := attrs(webhookEndpointTestURL)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(webhookEndpointTestConfig(e, attrs("ftp://example.com/hook")), regexp.MustCompile(`has the scheme "ftp"`)),
			planFails(webhookEndpointTestConfig(e, attrs("https://")), regexp.MustCompile(`has no host`)),
			planFails(webhookEndpointTestConfig(e, attrs("example.com/hook")), regexp.MustCompile(`has no scheme`)),
			planFails(webhookEndpointTestConfig(e, "  url  = \""+webhookEndpointTestURL+"\"\n  name = \"\""), regexp.MustCompile(`(?s)name.*string length must be between 1 and 256`)),
			planFails(webhookEndpointTestConfig(e, ok, `{ event_type = "EVERYTHING" }`), regexp.MustCompile(`(?s)event_type.*value must be one of`)),
			planFails(webhookEndpointTestConfig(e, ok, `{ event_type = "ACTIVITY_UPDATES", filters_json = "[1, 2]" }`), regexp.MustCompile(`(?s)filters_json.*not an object`)),
			planFails(webhookEndpointTestConfig(e, ok, `{ event_type = "ACTIVITY_UPDATES" }`, `{ event_type = "ACTIVITY_UPDATES", is_active = false }`), regexp.MustCompile(`Duplicate webhook subscription`)),
		},
	})
	for op := range e.srv.RequestCounts() {
		if strings.HasPrefix(op, "submit/") {
			t.Errorf("a plan with invalid configuration submitted %s", op)
		}
	}
}
