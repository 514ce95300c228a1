package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const mfaPoliciesTestAddr = "data.custody_mfa_policies.test"

func mfaPoliciesTestConfig(e *accEmulator, userID string) string {
	return e.config(fmt.Sprintf(`
data "custody_mfa_policies" "test" {
  user_id = %q
}
`, userID))
}

// mfaPoliciesTestItem is a policy as an item of the list: its id plus the
// same fields custody_mfa_policy checks.
func mfaPoliciesTestItem(id string, fields map[string]knownvalue.Check) knownvalue.Check {
	fields["mfa_policy_id"] = knownvalue.StringExact(id)
	return knownvalue.ObjectExact(fields)
}

func TestAccMfaPoliciesDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: mfaPoliciesTestConfig(e, mfaPolicyTestAlice),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(mfaPoliciesTestAddr, tfjsonpath.New("user_id"), knownvalue.StringExact(mfaPolicyTestAlice)),
					statecheck.ExpectKnownValue(mfaPoliciesTestAddr, tfjsonpath.New("mfa_policies"), knownvalue.ListExact([]knownvalue.Check{
						mfaPoliciesTestItem(mfaPolicyTestTwoStep, mfaPolicyTestTwoStepChecks()),
						mfaPoliciesTestItem(mfaPolicyTestAnyOf, mfaPolicyTestAnyOfChecks()),
					})),
				},
			},
			{
				// A user without policies gets an empty list, not null.
				Config: mfaPoliciesTestConfig(e, mfaPolicyTestBob),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(mfaPoliciesTestAddr, tfjsonpath.New("user_id"), knownvalue.StringExact(mfaPolicyTestBob)),
					statecheck.ExpectKnownValue(mfaPoliciesTestAddr, tfjsonpath.New("mfa_policies"), knownvalue.ListExact([]knownvalue.Check{})),
				},
			},
		},
	})
}

func TestAccMfaPoliciesDataSource_errors(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      mfaPoliciesTestConfig(e, "00000000-0000-4000-8000-0000000000aa"),
				ExpectError: errorPhrases("Error reading MFA policies", "user 00000000-0000-4000-8000-0000000000aa", "HTTP 404"),
			},
			planFails(mfaPoliciesTestConfig(e, ""), errorPhrases("user_id", "must not be empty or only white space")),
		},
	})
}
