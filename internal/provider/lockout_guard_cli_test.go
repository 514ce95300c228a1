package provider

import (
	"strings"
	"testing"
)

// TestLockoutGuardCLI runs the CLI as the terraform user, for what
// terraform-plugin-testing cannot show: the guard's warnings, how often
// the guard reports, and the requests it adds to a plan.
func TestLockoutGuardCLI(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	c := newTFCLI(t, w.e)
	// The terraform user's key (the last value of a variable wins).
	c.env = append(c.env, "CUSTODY_API_PUBLIC_KEY="+w.key.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY="+w.key.PrivateKeyHex())
	const three = `
resource "custody_policy" "p" {
  count     = 3
  name      = "wallets ${count.index}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET'"
}
`
	c.write(three)
	c.mustRun(0, "apply", "-auto-approve")

	// plan runs terraform with env and returns its one-line output, its exit
	// code and the requests it made.
	plan := func(env []string, args ...string) (string, int, map[string]int) {
		t.Helper()
		before := w.e.srv.RequestCounts()
		out, code := c.run(env, append([]string{"plan", "-detailed-exitcode"}, args...)...)
		after := w.e.srv.RequestCounts()
		for op := range after {
			after[op] -= before[op]
		}
		return strings.Join(strings.Fields(out), " "), code, after
	}

	// Updates: the refresh's one list serves the guard; nothing is added.
	c.write(strings.ReplaceAll(three, "wallets ", "wallet policy "))
	out, code, reqs := plan(nil)
	if code != 2 || reqs["query/list_policies"] != 1 || reqs["query/get_organization_configs"] != 0 || reqs["query/whoami"] != 1 {
		t.Errorf("a plan of 3 updates should list the policies once and ask nothing more (exit %d, requests %v):\n%s", code, reqs, out)
	}
	// Without a refresh, the guard adds the one list.
	out, code, reqs = plan(nil, "-refresh=false")
	if code != 2 || reqs["query/list_policies"] != 1 || reqs["query/get_organization_configs"] != 0 {
		t.Errorf("a plan without refresh should add one list_policies (exit %d, requests %v):\n%s", code, reqs, out)
	}

	// A deny on policy changes: one error, on the resource that adds it.
	c.write(three + freezePolicies)
	out, code, reqs = plan(nil)
	if code != 1 || strings.Count(out, "Error: Policy change would lock Terraform out") != 1 || !strings.Contains(out, "with custody_policy.freeze") ||
		reqs["query/get_organization_configs"] != 1 || reqs["query/list_policies"] != 1 {
		t.Errorf("the deny should fail the plan once, reading the root quorum once (exit %d, requests %v):\n%s", code, reqs, out)
	}
	// The opt-out, from the environment: a warning, and the plan goes on.
	out, code, _ = plan([]string{"CUSTODY_SKIP_POLICY_LOCKOUT_CHECK=true"})
	if code != 2 || strings.Contains(out, "Error:") || !strings.Contains(out, "Warning: Policy change locks Terraform out (skip_policy_lockout_check)") ||
		!strings.Contains(out, `ACTIVITY_TYPE_DELETE_POLICY: OUTCOME_DENY_EXPLICIT, by policy "freeze policies"`) ||
		!strings.Contains(out, "skip_policy_lockout_check is set, so the plan goes on") {
		t.Errorf("with CUSTODY_SKIP_POLICY_LOCKOUT_CHECK=true the plan should warn and go on (exit %d):\n%s", code, out)
	}

	// Turning the grant into one that needs two approvers does not lock
	// Terraform out, but its policy changes will wait: a warning.
	c.write(three + strings.Replace(w.grant("grant", "terraform manages policies"), `consensus = "approvers.any(u, u.id == 'user-terraform')"`,
		`consensus = "approvers.count() >= 2"`, 1))
	out, code, _ = plan(nil)
	if code != 2 || strings.Contains(out, "Error:") || !strings.Contains(out, "Warning: Terraform's policy changes will wait for approval") ||
		!strings.Contains(out, `ACTIVITY_TYPE_UPDATE_POLICY_V2: OUTCOME_REQUIRES_CONSENSUS, by policy "terraform manages policies" (now OUTCOME_ALLOW, by policy "terraform manages policies")`) {
		t.Errorf("a grant that needs two approvers should warn that policy changes will wait (exit %d):\n%s", code, out)
	}
}
