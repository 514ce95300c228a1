package provider

// Acceptance tests of the plan-time checks of policy expressions
// (policy_expression_validator.go): what the real terraform CLI shows for
// an error and a warning, and that valid, warned-about and not-yet-known
// expressions still apply against the emulator.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestAccPolicyLanguage_validateRefuses: `terraform validate` (no service
// involved) refuses a misspelt keyword on the second line of a heredoc and
// points at it by line and column, quoting that line with carets under the
// mistake.
func TestAccPolicyLanguage_validateRefuses(t *testing.T) {
	cli := newTFCLI(t, newAccEmulator(t))
	cli.write(`
resource "custody_policy" "test" {
  name      = "policy writes"
  effect    = "EFFECT_ALLOW"
  condition = <<-EOT
    activity.resource == 'POLICY' &&
      activty.action == 'CREATE'
  EOT
}
`)
	out := cli.mustRun(1, "validate")
	for _, want := range []string{
		"Error: Invalid policy condition expression",
		"line 2, column 3: unknown name activty",
		"did you mean activity?",
		"activty.action == 'CREATE'",
	} {
		if !strings.Contains(policyLanguageFlat(out), want) {
			t.Errorf("validate output does not contain %q:\n%s", want, out)
		}
	}
	// Terraform wraps the message but keeps indented lines as they are: the
	// quoted line (indented four spaces) and, under its column 3, the seven
	// carets of "activty".
	if !regexp.MustCompile(`(?m)^(│ ?)? {4}  activty\.action == 'CREATE'\n(│ ?)? {4}  \^{7}$`).MatchString(out) {
		t.Errorf("validate output does not quote line 2 with carets under activty:\n%s", out)
	}
}

// policyLanguageFlat is terraform's output without the frame of its
// diagnostics and with every run of spaces and newlines made one space, so
// that text Terraform wraps at the terminal width can be matched.
func policyLanguageFlat(out string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
}

// TestAccPolicyLanguage_warningInPlan: a misspelt field is only a warning
// (the service may know newer fields than its documentation), so
// `terraform plan` goes on, shows it and suggests the documented name.
func TestAccPolicyLanguage_warningInPlan(t *testing.T) {
	policyLanguagePlan(t, "policy activities", client.EffectAllow, "activity.resouce == 'POLICY'", 0,
		"Warning: Possible mistake in policy condition expression",
		`line 1, column 10: Activity has no documented field "resouce"; did you mean resource?`, //nolint:misspell // the misspelling is the input
		"custody_policy.test will be created")
}

// policyLanguagePlan plans custody_policy.test with this name, effect and
// condition, which must exit with code, and checks that the output holds
// each of want.
func policyLanguagePlan(t *testing.T, name, effect, cond string, code int, want ...string) {
	t.Helper()
	cli := newTFCLI(t, newAccEmulator(t))
	cli.write(fmt.Sprintf(`
resource "custody_policy" "test" {
  name      = %q
  effect    = %q
  condition = %q
}
`, name, effect, cond))
	out := cli.mustRun(code, "plan")
	for _, w := range want {
		if !strings.Contains(policyLanguageFlat(out), w) {
			t.Errorf("plan output does not contain %q:\n%s", w, out)
		}
	}
}

// TestAccPolicyLanguage_warningApplies: the expression warned about is
// applied as written and kept in state (an allow: a deny that never
// applies fails the plan, below).
func TestAccPolicyLanguage_warningApplies(t *testing.T) {
	policyLanguageAppliesAs(t, client.EffectAllow, "activity.resouce == 'POLICY'")
}

// TestAccPolicyLanguage_denyThatNeverAppliesFails: a deny reading a field
// the catalogue does not have never applies (every request lacks it, by
// the catalogue): a guardrail that guards nothing fails the plan.
func TestAccPolicyLanguage_denyThatNeverAppliesFails(t *testing.T) {
	policyLanguagePlan(t, "no policy changes", client.EffectDeny, "activity.resouce == 'POLICY'", 1,
		"Error: Policy finding: no policy changes", "never applies", "by the catalogue", `set the provider's never_applying_deny = "warning"`)
}

// TestAccPolicyLanguage_denyThatNeverAppliesWarnsWhenAsked: with the
// provider's never_applying_deny = "warning", the same deny plans, and its
// finding is a warning.
func TestAccPolicyLanguage_denyThatNeverAppliesWarnsWhenAsked(t *testing.T) {
	cli := newTFCLI(t, newAccEmulator(t))
	cli.write(`
provider "custody" {
  never_applying_deny = "warning"
}

resource "custody_policy" "test" {
  name      = "no policy changes"
  effect    = "EFFECT_DENY"
  condition = "activity.resouce == 'POLICY'"
}
`)
	out := policyLanguageFlat(cli.mustRun(0, "plan"))
	for _, w := range []string{"Warning: Policy finding: no policy changes", "never applies", "by the catalogue"} {
		if !strings.Contains(out, w) {
			t.Errorf("plan output does not contain %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "Error:") {
		t.Errorf("the finding should not fail the plan:\n%s", out)
	}
}

// TestAccPolicyLanguage_slice: the language's x[a..b] slice (which a CEL
// parser would refuse) plans without a finding, applies, and plans nothing
// afterwards.
func TestAccPolicyLanguage_slice(t *testing.T) {
	policyLanguageApplies(t, "eth.tx.data[0..10] == '0xa9059cbb' && activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'")
}

// policyLanguageApplies applies one policy with condition cond, checks
// state and service hold it as written, and that a second plan is empty.
func policyLanguageApplies(t *testing.T, cond string) {
	t.Helper()
	policyLanguageAppliesAs(t, client.EffectDeny, cond)
}

// policyLanguageAppliesAs is policyLanguageApplies with the policy's effect.
func policyLanguageAppliesAs(t *testing.T, effect, cond string) {
	t.Helper()
	e := newAccEmulator(t)
	policyAccTest(t, e, resource.TestStep{
		Config: e.config(`
resource "custody_policy" "test" {
  name      = "language"
  effect    = "` + effect + `"
  condition = "` + cond + `"
}
`),
		ConfigStateChecks: []statecheck.StateCheck{attrIs(policyTestAddr, "condition", knownvalue.StringExact(cond))},
		Check:             policyTestInService(e, client.Policy{PolicyName: "language", Effect: effect, Condition: cond}),
		ConfigPlanChecks:  thenEmptyPlan(),
	})
}

// TestAccPolicyLanguage_unknownAtPlan: a condition built from an id the
// service assigns during the same apply is unknown at plan time; the check
// skips it rather than failing the plan, and the apply sends the finished
// expression.
func TestAccPolicyLanguage_unknownAtPlan(t *testing.T) {
	e := newAccEmulator(t)
	policyAccTest(t, e, resource.TestStep{
		Config: e.config(`
resource "custody_private_key_tag" "cold" {
  name = "cold-storage"
}

resource "custody_policy" "test" {
  name      = "cold storage is frozen"
  effect    = "EFFECT_DENY"
  condition = "private_key.tags.contains('${custody_private_key_tag.cold.id}')"
}
`),
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply:             []plancheck.PlanCheck{plannedUnknown(policyTestAddr, "condition")},
			PostApplyPostRefresh: thenEmptyPlan().PostApplyPostRefresh,
		},
		ConfigStateChecks: []statecheck.StateCheck{attrIs(policyTestAddr, "condition",
			knownvalue.StringRegexp(regexp.MustCompile(`^private_key\.tags\.contains\('[^'\s]+'\)$`)))},
	})
}
