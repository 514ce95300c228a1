package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
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

// webhookEndpointTestAttrs are the url and name of an endpoint, as
// webhookEndpointTestConfig takes them.
func webhookEndpointTestAttrs(url, name string) string {
	return fmt.Sprintf("  url  = %q\n  name = %q", url, name)
}

// webhookEndpointTestSubActivity is an ACTIVITY_UPDATES subscription with
// webhookEndpointTestFilters, spaces included.
var webhookEndpointTestSubActivity = fmt.Sprintf(`{ event_type = "ACTIVITY_UPDATES", filters_json = %q }`, webhookEndpointTestFilters)

const webhookEndpointTestSubBalance = `{ event_type = "BALANCE_CONFIRMED_UPDATES", is_active = false }`

func webhookEndpointTestSub(eventType string, filters, active knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"event_type": knownvalue.StringExact(eventType), "filters_json": filters, "is_active": active})
}

// webhookEndpointTestStored checks the stored url, name and is_active of
// the endpoint in state.
func webhookEndpointTestStored(e *accEmulator, url, name string, active bool) resource.TestCheckFunc {
	return checkID(webhookEndpointAddr, func(ctx context.Context, id string) error {
		list, err := e.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
		if err != nil {
			return err
		}
		i := slices.IndexFunc(list.WebhookEndpoints, func(ep client.WebhookEndpoint) bool { return ep.EndpointID == id })
		if i < 0 {
			return fmt.Errorf("endpoint %s not in list_webhook_endpoints", id)
		}
		if ep := list.WebhookEndpoints[i]; ep.URL != url || ep.Name != name || ep.IsActive != active {
			return fmt.Errorf("stored url=%q name=%q is_active=%v, want %q %q %v", ep.URL, ep.Name, ep.IsActive, url, name, active)
		}
		return nil
	})
}

// webhookEndpointTestIDs lists the endpoint ids the service holds.
func webhookEndpointTestIDs(ctx context.Context, e *accEmulator) ([]string, error) {
	list, err := e.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, ep := range list.WebhookEndpoints {
		ids = append(ids, ep.EndpointID)
	}
	return ids, nil
}

// webhookEndpointTestDestroyed is a CheckDestroy: no endpoint is left.
func webhookEndpointTestDestroyed(e *accEmulator) resource.TestCheckFunc {
	return webhookEndpointTestHolds(e, 0)
}

// webhookEndpointTestHolds checks the service holds n endpoints: a
// replacement deletes the old endpoint, a destroy all of them.
func webhookEndpointTestHolds(e *accEmulator, n int) resource.TestCheckFunc {
	return checkService(func(ctx context.Context) error {
		ids, err := webhookEndpointTestIDs(ctx, e)
		if err != nil {
			return err
		}
		if len(ids) != n {
			return fmt.Errorf("service holds %d webhook endpoints, want %d: %v", len(ids), n, ids)
		}
		return nil
	})
}

// webhookEndpointTestOutside changes the only endpoint outside Terraform,
// in a step's PreConfig.
func webhookEndpointTestOutside(t *testing.T, e *accEmulator, change func(ctx context.Context, id string) error) func() {
	return outside(t, func(ctx context.Context) error {
		ids, err := webhookEndpointTestIDs(ctx, e)
		if err != nil {
			return err
		}
		if len(ids) != 1 {
			return fmt.Errorf("want one webhook endpoint, got %d", len(ids))
		}
		return change(ctx, ids[0])
	})
}

func TestAccWebhookEndpoint_basic(t *testing.T) {
	e := newAccEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	imp := accImport{addr: webhookEndpointAddr}
	v1 := webhookEndpointTestConfig(e, webhookEndpointTestAttrs(webhookEndpointTestURL, "alerts"), webhookEndpointTestSubActivity, webhookEndpointTestSubBalance)
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
				ConfigStateChecks: append(attrsAre(webhookEndpointAddr, map[string]knownvalue.Check{
					"id":        knownvalue.StringRegexp(accNonBlank),
					"url":       knownvalue.StringExact(webhookEndpointTestURL),
					"name":      knownvalue.StringExact("alerts"),
					"is_active": knownvalue.Bool(true),
					"subscriptions": knownvalue.SetExact([]knownvalue.Check{
						// The configured spelling, spaces included.
						webhookEndpointTestSub("ACTIVITY_UPDATES", knownvalue.StringExact(webhookEndpointTestFilters), knownvalue.Bool(true)),
						webhookEndpointTestSub("BALANCE_CONFIRMED_UPDATES", knownvalue.Null(), knownvalue.Bool(false)),
					}),
					"timeouts": knownvalue.Null(),
				}), sameID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id"))),
				Check: webhookEndpointTestStored(e, webhookEndpointTestURL, "alerts", true),
			},
			{
				// url, name and is_active change in place.
				Config:           v2,
				ConfigPlanChecks: expectAction(webhookEndpointAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: append(attrsAre(webhookEndpointAddr, map[string]knownvalue.Check{
					"url":       knownvalue.StringExact("http://127.0.0.1:9/hook2"),
					"name":      knownvalue.StringExact("alerts-renamed"),
					"is_active": knownvalue.Bool(false),
				}), sameID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id")), newID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id"))),
				Check: webhookEndpointTestStored(e, "http://127.0.0.1:9/hook2", "alerts-renamed", false),
			},
			{
				// A subscription change replaces the endpoint; the new one is
				// created inactive (create, then an update deactivating it).
				Config:           v3,
				ConfigPlanChecks: expectAction(webhookEndpointAddr, plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: append(attrsAre(webhookEndpointAddr, map[string]knownvalue.Check{
					"is_active": knownvalue.Bool(false),
					"subscriptions": knownvalue.SetExact([]knownvalue.Check{
						webhookEndpointTestSub("ACTIVITY_UPDATES", knownvalue.StringExact(webhookEndpointTestFilters), knownvalue.Bool(true)),
						webhookEndpointTestSub("BALANCE_CONFIRMED_UPDATES", knownvalue.Null(), knownvalue.Bool(true)),
					}),
				}), newID.AddStateValue(webhookEndpointAddr, tfjsonpath.New("id"))),
				Check: resource.ComposeAggregateTestCheckFunc(
					webhookEndpointTestStored(e, "http://127.0.0.1:9/hook2", "alerts-renamed", false),
					webhookEndpointTestHolds(e, 1),
				),
			},
			imp.verify(),
			imp.block(plancheck.ExpectResourceAction(webhookEndpointAddr, plancheck.ResourceActionNoop),
				plannedIs(webhookEndpointAddr, "name", knownvalue.StringExact("alerts-renamed")),
				plannedIs(webhookEndpointAddr, "subscriptions", knownvalue.SetSizeExact(2))),
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
	cfg := webhookEndpointTestConfig(e, webhookEndpointTestAttrs(webhookEndpointTestURL, "adopted"), webhookEndpointTestSubActivity)
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
				ConfigPlanChecks:  expectAction(webhookEndpointAddr, plancheck.ResourceActionNoop),
				ConfigStateChecks: []statecheck.StateCheck{attrIs(webhookEndpointAddr, "id", knownvalue.StringExact(out.Result.EndpointID))},
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
	attrs := func(url string) string { return webhookEndpointTestAttrs(url, "v") }
	ok := attrs(webhookEndpointTestURL)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(webhookEndpointTestConfig(e, attrs("ftp://example.com/hook")), regexp.MustCompile(`has the scheme "ftp"`)),
			planFails(webhookEndpointTestConfig(e, attrs("https://")), regexp.MustCompile(`has no host`)),
			planFails(webhookEndpointTestConfig(e, attrs("example.com/hook")), regexp.MustCompile(`has no scheme`)),
			planFails(webhookEndpointTestConfig(e, webhookEndpointTestAttrs(webhookEndpointTestURL, "")), regexp.MustCompile(`(?s)name.*must not be empty or only white space`)),
			// The service's limit, from the table the emulator enforces too:
			// refused at plan, not at apply.
			planFails(webhookEndpointTestConfig(e, attrs(webhookEndpointTestURL+"?q="+strings.Repeat("x", 5000))),
				regexp.MustCompile(`(?s)url.*must\s+be\s+at\s+most\s+2048\s+bytes`)),
			planFails(webhookEndpointTestConfig(e, ok, `{ event_type = "EVERYTHING" }`), regexp.MustCompile(`subscriptions\[event_type\s+=\s+"EVERYTHING"\]\.event_type\s+must\s+be\s+one\s+of`)),
			planFails(webhookEndpointTestConfig(e, ok, `{ event_type = "ACTIVITY_UPDATES", filters_json = "[1, 2]" }`), regexp.MustCompile(`(?s)filters_json.*not an object`)),
			planFails(webhookEndpointTestConfig(e, ok, `{ event_type = "ACTIVITY_UPDATES" }`, `{ event_type = "ACTIVITY_UPDATES", is_active = false }`), regexp.MustCompile(`Duplicate webhook subscription`)),
		},
	})
	expectNoSubmits(t, e)
}

func TestAccWebhookEndpoint_drift(t *testing.T) {
	e := newAccEmulator(t)
	cfg := webhookEndpointTestConfig(e, webhookEndpointTestAttrs(webhookEndpointTestURL, "drift"), webhookEndpointTestSubActivity)
	accTest(t, resource.TestCase{
		CheckDestroy: webhookEndpointTestDestroyed(e),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// Renamed and moved outside Terraform: changed back in place.
				PreConfig: webhookEndpointTestOutside(t, e, func(ctx context.Context, id string) error {
					_, err := e.client.UpdateWebhookEndpoint(ctx, client.UpdateWebhookEndpointParams{
						EndpointID: id, Name: "elsewhere", URL: "http://127.0.0.1:9/other"})
					return err
				}),
				Config:           cfg,
				ConfigPlanChecks: planAction(webhookEndpointAddr, plancheck.ResourceActionUpdate),
				Check:            webhookEndpointTestStored(e, webhookEndpointTestURL, "drift", true),
			},
			{
				// Deactivated outside Terraform: activated again.
				PreConfig: webhookEndpointTestOutside(t, e, func(ctx context.Context, id string) error {
					off := false
					_, err := e.client.UpdateWebhookEndpoint(ctx, client.UpdateWebhookEndpointParams{EndpointID: id, IsActive: &off})
					return err
				}),
				Config:           cfg,
				ConfigPlanChecks: planAction(webhookEndpointAddr, plancheck.ResourceActionUpdate),
				Check:            webhookEndpointTestStored(e, webhookEndpointTestURL, "drift", true),
			},
			{
				// Deleted outside Terraform: created again.
				PreConfig: webhookEndpointTestOutside(t, e, func(ctx context.Context, id string) error {
					_, err := e.client.DeleteWebhookEndpoint(ctx, client.DeleteWebhookEndpointParams{EndpointID: id})
					return err
				}),
				Config:           cfg,
				ConfigPlanChecks: planAction(webhookEndpointAddr, plancheck.ResourceActionCreate),
				Check:            webhookEndpointTestStored(e, webhookEndpointTestURL, "drift", true),
			},
		},
	})
}

// TestAccWebhookEndpoint_refreshListsOnce: refreshing five endpoints costs
// one list_webhook_endpoints query, not five.
func TestAccWebhookEndpoint_refreshListsOnce(t *testing.T) {
	e := newAccEmulator(t)
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
				ConfigStateChecks: []statecheck.StateCheck{attrIs("custody_webhook_endpoint.many[4]", "subscriptions", knownvalue.SetExact([]knownvalue.Check{}))},
			},
			refreshStep(e, "refreshing 5 endpoints", map[string]int{"query/list_webhook_endpoints": 1}, stateHolds(5)),
		},
	})
}
