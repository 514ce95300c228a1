package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// policiesTestSame checks that attr of item i equals attr of resource res.
func policiesTestSame(i int, res, attr string) statecheck.StateCheck {
	return statecheck.CompareValuePairs("data.custody_policies.all", tfjsonpath.New("policies").AtSliceIndex(i).AtMapKey(attr),
		res, tfjsonpath.New(attr), compare.ValuesSame())
}

func TestAccPoliciesDataSource_basic(t *testing.T) {
	e := newAccEmulator(t)
	// The names are not in creation order, and the ids are random, so
	// neither a sort by name nor by id passes for the service's order.
	const config = `
resource "custody_policy" "first" {
  name      = "zeta: two approvals"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
  consensus = "approvers.count() >= 2"
  time      = "CronSpan('0 8 * * *', '10h', 'UTC')"
  notes     = "first"
}

resource "custody_policy" "second" {
  name       = "alpha: deny"
  effect     = "EFFECT_DENY"
  depends_on = [custody_policy.first]
}

resource "custody_policy" "third" {
  name       = "mu: allow all"
  effect     = "EFFECT_ALLOW"
  consensus  = "approvers.count() >= 1"
  depends_on = [custody_policy.second]
}

data "custody_policies" "all" {
  depends_on = [custody_policy.third]
}
`
	str := knownvalue.StringExact
	stamp := knownvalue.StringRegexp(accRFC3339)
	checks := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.custody_policies.all", tfjsonpath.New("policies"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id": knownvalue.NotNull(), "name": str("zeta: two approvals"), "effect": str("EFFECT_ALLOW"),
				"condition": str("activity.resource == 'PRIVATE_KEY'"), "consensus": str("approvers.count() >= 2"),
				"time": str("CronSpan('0 8 * * *', '10h', 'UTC')"), "notes": str("first"), "created_at": stamp, "updated_at": stamp,
			}),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id": knownvalue.NotNull(), "name": str("alpha: deny"), "effect": str("EFFECT_DENY"),
				"condition": knownvalue.Null(), "consensus": knownvalue.Null(), "time": knownvalue.Null(), "notes": str(""),
				"created_at": stamp, "updated_at": stamp,
			}),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id": knownvalue.NotNull(), "name": str("mu: allow all"), "effect": str("EFFECT_ALLOW"),
				"condition": knownvalue.Null(), "consensus": str("approvers.count() >= 1"), "time": knownvalue.Null(), "notes": str(""),
				"created_at": stamp, "updated_at": stamp,
			}),
		})),
	}
	for i, res := range []string{"custody_policy.first", "custody_policy.second", "custody_policy.third"} {
		// Not the timestamps: the resources hold their activities' times,
		// the data source the service's record (custody_policy's test
		// checks that one).
		checks = append(checks, policiesTestSame(i, res, "id"))
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			// Before any policy: an empty list, not null.
			Config: e.config(`data "custody_policies" "all" {}`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.custody_policies.all", tfjsonpath.New("policies"), knownvalue.ListExact([]knownvalue.Check{})),
			},
		}, {
			Config:            e.config(config),
			ConfigStateChecks: checks,
		}},
	})
}
