package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// policyDataSourceTestTimes checks that the data source's timestamps are
// the service's own (the resource's come from its activities, and may
// differ by the moments between an activity's end and the policy's
// record), and that the data sources read through list_policies alone.
func policyDataSourceTestTimes(e *accEmulator, data ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, addr := range data {
			rs, ok := s.RootModule().Resources[addr]
			if !ok {
				return fmt.Errorf("%s is not in state", addr)
			}
			got, err := e.client.GetPolicy(context.Background(), client.GetPolicyRequest{PolicyID: rs.Primary.ID})
			if err != nil {
				return err
			}
			for attr, ts := range map[string]client.Timestamp{"created_at": got.Policy.CreatedAt, "updated_at": got.Policy.UpdatedAt} {
				if want := timestampValue(ts).ValueString(); rs.Primary.Attributes[attr] != want {
					return fmt.Errorf("%s.%s = %q, want the service's %q", addr, attr, rs.Primary.Attributes[attr], want)
				}
			}
		}
		if n := e.srv.RequestCounts()["query/get_policy"]; n != len(data) {
			return fmt.Errorf("%d get_policy requests, want only this check's %d: the data sources must read the shared list", n, len(data))
		}
		return nil
	}
}

// policyDataSourceTestSame checks that attr of the data source equals the
// same attribute of the resource it reads.
func policyDataSourceTestSame(data, res, attr string) statecheck.StateCheck {
	return statecheck.CompareValuePairs(data, tfjsonpath.New(attr), res, tfjsonpath.New(attr), compare.ValuesSame())
}

func TestAccPolicyDataSource_basic(t *testing.T) {
	e := newAccEmulator(t)
	const data, bare = "data.custody_policy.test", "data.custody_policy.bare"
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Check: policyDataSourceTestTimes(e, data, bare),
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
				statecheck.ExpectKnownValue(data, tfjsonpath.New("created_at"), knownvalue.StringRegexp(accRFC3339)),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("updated_at"), knownvalue.StringRegexp(accRFC3339)),
				policyDataSourceTestSame(data, "custody_policy.test", "id"),
				// The service's "" for absent expressions is null, as in the
				// resource; notes stay "".
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("name"), knownvalue.StringExact("deny everything")),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("effect"), knownvalue.StringExact("EFFECT_DENY")),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("condition"), knownvalue.Null()),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("consensus"), knownvalue.Null()),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("time"), knownvalue.Null()),
				statecheck.ExpectKnownValue(bare, tfjsonpath.New("notes"), knownvalue.StringExact("")),
				policyDataSourceTestSame(bare, "custody_policy.bare", "id"),
			},
		}},
	})
}

func TestAccPolicyDataSource_errors(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(e.dataBlock("custody_policy", "id", "4b1c7a3e-0000-4000-8000-000000000000"),
				regexp.MustCompile(`(?s)Policy not found.*no policy\s+4b1c7a3e-0000-4000-8000-000000000000`)),
			planFails(e.dataBlock("custody_policy", "id", ""), regexp.MustCompile(`(?s)id.*must be a policy id`)),
		},
	})
}
