package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guideFiles are the configuration and the test file of the guide
// "Reviewing policy changes"'s "grants no new access", as the guide shows
// them (one block, the test file after its "# tests/" line).
func guideFiles(t *testing.T) (config, test string) {
	t.Helper()
	raw, err := os.ReadFile("../../templates/guides/reviewing-policy-changes.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```terraform\n(# main.tf[^\n]*\n.*?NOT_PROVED.*?)(# tests/[^\n]*\n.*?)```").FindSubmatch(raw)
	if m == nil {
		t.Fatal("the guide has no configuration and test of its assertion naming NOT_PROVED")
	}
	return string(m[1]), string(m[2])
}

// TestAccPolicyChangesGuideAssertion runs the guide's assertion in
// `terraform test` with the real CLI (and in the compatibility suite with
// `tofu test`): a change that only narrows passes (a business-hours
// policy tightened included), a new allow fails, office hours moved fail
// on a proved row (17:00 to 18:00 is new), and a change whose effect hangs
// on CronSpans that name days of the month, which the analysis does not
// decide, fails as NOT_PROVED: "cannot be proved" is never taken for "no
// new access".
func TestAccPolicyChangesGuideAssertion(t *testing.T) {
	cli := newTFCLI(t, newAccEmulator(t))
	config, test := guideFiles(t)
	cli.write(config + `
variable "policies_today" { type = any }
variable "policies_proposed" { type = any }
output "not_proved" {
  value = [for c in provider::custody::policy_changes(var.policies_today, var.policies_proposed) : c if c.after == "NOT_PROVED"]
}
`)
	const tags = `{ name = "tags", effect = "EFFECT_ALLOW", condition = "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'" }`
	hours := func(cron, extra string) string {
		return `[{ name = "tags in office hours", effect = "EFFECT_ALLOW", ` +
			`condition = "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'", time = "CronSpan('` + cron + `', '8h', 'UTC')"` + extra + ` }]`
	}
	for _, tc := range []struct {
		name, today, proposed string
		holds, notProved      bool
	}{
		{name: "narrowing", today: "[" + tags + "]", proposed: "[]", holds: true},
		{name: "new allow", today: "[]", proposed: "[" + tags + "]"},
		// Office hours tightened to two approvers: narrowing only.
		{name: "office hours tightened", today: hours("0 9 * * 1-5", ""), proposed: hours("0 9 * * 1-5", `, consensus = "approvers.count() >= 2"`), holds: true},
		// Office hours moved from 9-17 to 10-18: 17:00 to 18:00 on weekdays
		// is new, a proved row.
		{name: "office hours moved", today: hours("0 9 * * 1-5", ""), proposed: hours("0 10 * * 1-5", "")},
		// The first of the month moved from 9-17 to 10-18: a CronSpan that
		// names days of the month is not decided.
		{name: "monthly hours moved", today: hours("0 9 1 * *", ""), proposed: hours("0 10 1 * *", ""), notProved: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tests := filepath.Join(cli.dir, "tests")
			if err := os.RemoveAll(tests); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(tests, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(tests, "access.tftest.hcl"), `
variables {
  policies_today    = `+tc.today+`
  policies_proposed = `+tc.proposed+`
}
`+test+`
run "not_proved" {
  command = plan
  assert {
    condition     = length(output.not_proved) > 0
    error_message = "no NOT_PROVED element"
  }
}
`)
			out, _ := cli.run(nil, "test")
			held := strings.Contains(out, `run "grants_no_new_access"... pass`)
			failed := strings.Contains(out, `run "grants_no_new_access"... fail`) &&
				strings.Contains(out, "The change allows requests it did not allow before, or that cannot be proved.")
			if tc.holds != held || tc.holds == failed {
				t.Fatalf("the guide's assertion held: %v, failed with its message: %v; want it to hold: %v:\n%s", held, failed, tc.holds, out)
			}
			if notProved := !strings.Contains(out, "no NOT_PROVED element"); notProved != tc.notProved {
				t.Fatalf("a NOT_PROVED element: %v, want %v:\n%s", notProved, tc.notProved, out)
			}
		})
	}
}
