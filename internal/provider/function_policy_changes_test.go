package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// TestAccPolicyChangesFunction: policy_changes reads its arguments as
// policy_decision reads policies, so a planned resource serves though its
// id and created_at are unknown (the result is known at plan); a part it
// reads that is unknown makes the result unknown; a bad expression is an
// error naming its argument. The rows themselves are checked against the
// plan's warnings and policy_decision by the TestAccessReviewCLI tests.
func TestAccPolicyChangesFunction(t *testing.T) {
	e := newAccEmulator(t)
	const tags = `
resource "custody_policy" "tags" {
  name      = "tags alone"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'"
}
`
	row := knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"activity_type": knownvalue.StringExact("ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG"),
		"before":        knownvalue.StringExact("OUTCOME_DENY_IMPLICIT"),
		"after":         knownvalue.StringExact("OUTCOME_ALLOW"),
		"example":       knownvalue.StringRegexp(regexp.MustCompile(`ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG`)),
	})
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: `
output "bad" {
  value = provider::custody::policy_changes([], [{ name = "dq", effect = "EFFECT_ALLOW", condition = "activity.type == \"x\"" }])
}
`,
			ExpectError: regexp.MustCompile(`after\[0\]: policy "dq": invalid policy\s+condition\s+expression`),
		},
		{
			Config: e.config(tags + `
output "rows" {
  value = provider::custody::policy_changes([], [custody_policy.tags])
}
output "none" {
  value = provider::custody::policy_changes([custody_policy.tags], [custody_policy.tags])
}
output "unknown" {
  value = provider::custody::policy_changes([], [{ effect = custody_policy.tags.id != "" ? "EFFECT_ALLOW" : "EFFECT_DENY" }])
}
`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("rows", knownvalue.ListPartial(map[int]knownvalue.Check{0: row})),
				plancheck.ExpectKnownOutputValue("none", knownvalue.ListExact(nil)),
				plancheck.ExpectUnknownOutputValue("unknown"),
			}},
		},
	}})
}

// TestAccPolicyChangesExampleHolds applies the function's documented
// example (examples/functions/policy_changes/function.tf) with the real
// CLI: its check block must hold, so the docs page never states a row the
// function does not give.
func TestAccPolicyChangesExampleHolds(t *testing.T) {
	if _, out := applyFunctionExample(t, "policy_changes"); !strings.Contains(out, "OUTCOME_REQUIRES_CONSENSUS") {
		t.Fatalf("the example shows no row:\n%s", out)
	}
}
