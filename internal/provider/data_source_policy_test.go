package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// policyDataSourceTestSame checks that attr of the data source equals the
// same attribute of the resource it reads.
func policyDataSourceTestSame(data, res, attr string) statecheck.StateCheck {
	return statecheck.CompareValuePairs(data, tfjsonpath.New(attr), res, tfjsonpath.New(attr), compare.ValuesSame())
}

func TestAccPolicyDataSource_basic(t *testing.T) {
	e := newAccEmulator(t)
	const data, bare = "data.custody_policy.test", "data.custody_policy.bare"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.config(`
resource "custody_policy" "test" {
  name      = "two approvals for signing"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
  consensus = "approvers.count() >= 2"
  notes     = "treasury signing"
}

resource "custody_policy" "bare" {
  name   = "deny everything"
  effect = "EFFECT_DENY"
}

data "custody_policy" "test" {
  id = custody_policy.test.id
}

data "custody_policy" "bare" {
  id = custody_policy.bare.id
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(data, tfjsonpath.New("name"), knownvalue.StringExact("two approvals for signing")),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("effect"), knownvalue.StringExact("EFFECT_ALLOW")),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("condition"), knownvalue.StringExact("activity.resource == 'PRIVATE_KEY'")),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("consensus"), knownvalue.StringExact("approvers.count() >= 2")),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("notes"), knownvalue.StringExact("treasury signing")),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("time"), knownvalue.Null()),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("created_at"), knownvalue.StringRegexp(policyTestRFC3339)),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("updated_at"), knownvalue.StringRegexp(policyTestRFC3339)),
				policyDataSourceTestSame(data, "custody_policy.test", "id"),
				policyDataSourceTestSame(data, "custody_policy.test", "created_at"),
				policyDataSourceTestSame(data, "custody_policy.test", "updated_at"),
				// The service's "" for absent expressions is null, as in the
				// resource; notes stay "".
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("name"), knownvalue.StringExact("deny everything")),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("effect"), knownvalue.StringExact("EFFECT_DENY")),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("condition"), knownvalue.Null()),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("consensus"), knownvalue.Null()),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("time"), knownvalue.Null()),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("notes"), knownvalue.StringExact("")),
				policyDataSourceTestSame(bare, "custody_policy.bare", "id"),
				policyDataSourceTestSame(bare, "custody_policy.bare", "created_at"),
				policyDataSourceTestSame(bare, "custody_policy.bare", "updated_at"),
			},
		}},
	})
}

func TestAccPolicyDataSource_errors(t *testing.T) {
	e := newAccEmulator(t)
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{Config: e.config(body), PlanOnly: true, ExpectError: regexp.MustCompile(want)}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(`
data "custody_policy" "x" {
  id = "4b1c7a3e-0000-4000-8000-000000000000"
}
`, `(?s)Error reading policy.*get_policy for policy 4b1c7a3e-0000-4000-8000-000000000000 failed.*HTTP 404`),
			step(`
data "custody_policy" "x" {
  id = ""
}
`, `(?s)id.*must be a policy id`),
		},
	})
}
