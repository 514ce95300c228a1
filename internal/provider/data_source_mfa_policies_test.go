package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

const mfaPoliciesTestAddr = "data.custody_mfa_policies.test"

func mfaPoliciesTestConfig(e *accEmulator, userID string) string {
	return e.dataBlock("custody_mfa_policies", "user_id", userID)
}

// mfaPoliciesTestList checks the user and the list of its policies.
func mfaPoliciesTestList(userID string, policies ...knownvalue.Check) []statecheck.StateCheck {
	return attrsAre(mfaPoliciesTestAddr, map[string]knownvalue.Check{
		"user_id": knownvalue.StringExact(userID), "mfa_policies": knownvalue.ListExact(policies)})
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
				ConfigStateChecks: mfaPoliciesTestList(mfaPolicyTestAlice,
					mfaPoliciesTestItem(mfaPolicyTestTwoStep, mfaPolicyTestTwoStepChecks()),
					mfaPoliciesTestItem(mfaPolicyTestAnyOf, mfaPolicyTestAnyOfChecks())),
			},
			{
				// A user without policies gets an empty list, not null.
				Config:            mfaPoliciesTestConfig(e, mfaPolicyTestBob),
				ConfigStateChecks: mfaPoliciesTestList(mfaPolicyTestBob),
			},
		},
	})
}

func TestAccMfaPoliciesDataSource_errors(t *testing.T) {
	accReadErrors(t, mfaPoliciesTestConfig, "user_id", "", "00000000-0000-4000-8000-0000000000aa",
		"Error reading MFA policies", "user 00000000-0000-4000-8000-0000000000aa", "HTTP 404")
}
