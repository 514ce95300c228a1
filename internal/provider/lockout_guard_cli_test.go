package provider

import (
	"fmt"
	"maps"
	"slices"
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

	// Updates: the refresh's one list serves the guard; nothing is added
	// to the command's first reads (whoami, the list and the root quorum,
	// sent together: provider_prefetch.go).
	c.write(strings.ReplaceAll(three, "wallets ", "wallet policy "))
	out, code, reqs := plan(nil)
	if code != 2 || reqs["query/list_policies"] != 1 || reqs["query/get_organization_configs"] != 1 || reqs["query/whoami"] != 1 {
		t.Errorf("a plan of 3 updates should list the policies once and ask nothing more (exit %d, requests %v):\n%s", code, reqs, out)
	}
	// Without a refresh, the guard's list is the first reads' one.
	out, code, reqs = plan(nil, "-refresh=false")
	if code != 2 || reqs["query/list_policies"] != 1 || reqs["query/get_organization_configs"] != 1 {
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

// guardCLI is a CLI working directory of the terraform user, in which the
// grants named have been adopted (imported) as custody_policy resources of
// the same names as their keys.
func guardCLI(t *testing.T, w *guardWorld, grants map[string]string) *tfCLI {
	t.Helper()
	c := newTFCLI(t, w.e)
	c.env = append(c.env, "CUSTODY_API_PUBLIC_KEY="+w.key.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY="+w.key.PrivateKeyHex())
	var body strings.Builder
	for _, resource := range slices.Sorted(maps.Keys(grants)) {
		body.WriteString(w.grant(resource, grants[resource]))
	}
	c.write(body.String())
	c.mustRun(0, "apply", "-auto-approve")
	return c
}

// grantResource is the HCL of a grant as resource name, without the
// import block that adopted it, and with extra lines in its block.
func grantResource(name, policy string, extra ...string) string {
	return fmt.Sprintf(`
resource "custody_policy" %q {
  name      = %q
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'POLICY'"
  consensus = "approvers.any(u, u.id == '%s')"
  %s
}
`, name, policy, guardUser, strings.Join(extra, "\n  "))
}

// onlyGrantCLI is the CLI of a terraform user whose only grant, policy
// (id), is adopted as custody_policy.grant.
func onlyGrantCLI(t *testing.T) (w *guardWorld, c *tfCLI, policy, id string) {
	t.Helper()
	policy = "terraform manages policies"
	w = newGuardWorld(t, policy)
	return w, guardCLI(t, w, map[string]string{"grant": policy}), policy, w.grants[policy]
}

// The case: the terraform user's only grant is custody_policy.grant.
// Renamed without a moved block, it is refused in every plan, since
// Terraform may apply the delete first (the guard used to pass the plans
// in which it happened to plan the create first); with a moved block the
// plan passes.
func TestLockoutGuardCLI_rename(t *testing.T) {
	w, c, policy, id := onlyGrantCLI(t)

	c.write(grantResource("grant2", policy))
	for i := range 10 {
		out, code := c.run(nil, "plan", "-detailed-exitcode")
		flat := strings.Join(strings.Fields(out), " ")
		for _, want := range []string{
			"Error: Policy change would lock Terraform out",
			fmt.Sprintf(`Deleting policy "%s" (%s) would leave the provider's own user, terraform (user-terraform), unable to change policies by itself`, policy, id),
			`ACTIVITY_TYPE_CREATE_POLICIES: OUTCOME_DENY_IMPLICIT: no policy allows it (now OUTCOME_ALLOW, by policy "terraform manages policies")`,
			"Terraform may apply the planned policy changes in any order, and an apply that fails stops part way, so the check judges " +
				"every state an apply can pass through or stop in, not only the last one.",
			fmt.Sprintf(`The state judged above is the one after deleting policy "%s" (%s)`, policy, id),
			"declare a moved block (moved { from = custody_policy.old, to = custody_policy.new })",
			"apply twice: first create the new policy, then remove the old one.",
		} {
			if code != 1 || strings.Count(flat, "Error:") != 1 || !strings.Contains(flat, want) {
				t.Fatalf("plan %d of the rename: exit %d, want 1 and one error holding %q:\n%s", i+1, code, want, out)
			}
		}
	}

	c.write(grantResource("grant2", policy) + "\nmoved {\n  from = custody_policy.grant\n  to   = custody_policy.grant2\n}\n")
	if out, code := c.run(nil, "plan", "-detailed-exitcode"); (code != 0 && code != 2) || strings.Contains(out, "Error:") {
		t.Fatalf("with a moved block the plan should pass (exit %d):\n%s", code, out)
	}
	expectPolicies(t, w.e, policy)
}

// A replacement (-replace) of the only grant, which the plan shows as a
// create only, is refused at apply before the delete is submitted, and
// Terraform can still change policies afterwards; with
// create_before_destroy the new grant is made first and it goes through.
func TestLockoutGuardCLI_replace(t *testing.T) {
	w, c, policy, id := onlyGrantCLI(t)

	c.write(grantResource("grant", policy))
	// refused runs terraform with args and env: it must fail at apply
	// with the guard's refusal, having submitted nothing, and leave the
	// grant and the state as they were.
	refused := func(env []string, args ...string) {
		t.Helper()
		before := w.e.srv.RequestCounts()
		out, code := c.run(env, args...)
		after := w.e.srv.RequestCounts()
		flat := strings.Join(strings.Fields(out), " ")
		if code != 1 || !strings.Contains(flat, "Error: Policy delete would lock Terraform out") ||
			!strings.Contains(flat, fmt.Sprintf(`Deleting policy "%s" (%s) now would leave the provider's own user`, policy, id)) ||
			!strings.Contains(flat, "The provider refused this delete before submitting it: nothing was deleted.") ||
			!strings.Contains(flat, "lifecycle { create_before_destroy = true }") {
			t.Fatalf("terraform %v should be refused at apply (exit %d):\n%s", args, code, out)
		}
		for _, op := range []string{"submit/delete_policies", "submit/delete_policy", "submit/create_policies"} {
			if after[op] != before[op] {
				t.Errorf("terraform %v submitted %d %s", args, after[op]-before[op], op)
			}
		}
		expectPolicies(t, w.e, policy)
		if ids := c.policyStateIDs(); len(ids) != 1 || ids[0] != id {
			t.Errorf("state holds %v, want the grant %s as it was", ids, id)
		}
	}
	refused(nil, "apply", "-auto-approve", "-replace=custody_policy.grant")
	// Without batching the delete is its own delete_policy: refused alike.
	refused([]string{"CUSTODY_BATCHING_ENABLED=false"}, "apply", "-auto-approve", "-replace=custody_policy.grant")
	// A tainted grant is replaced by every apply: refused until untainted.
	c.mustRun(0, "taint", "custody_policy.grant")
	refused(nil, "apply", "-auto-approve")
	c.mustRun(0, "untaint", "custody_policy.grant")
	// Terraform can still change policies.
	c.write(grantResource("grant", policy) + harmlessPolicy)
	c.mustRun(0, "apply", "-auto-approve")
	expectPolicies(t, w.e, policy, "wallets need two")

	// create_before_destroy: the new grant is made first, then the old one
	// may go; Terraform can still act after it.
	cbd := grantResource("grant", policy, "lifecycle {\n    create_before_destroy = true\n  }")
	c.write(cbd + harmlessPolicy)
	c.mustRun(0, "apply", "-auto-approve", "-replace=custody_policy.grant")
	expectPolicies(t, w.e, policy, "wallets need two")
	if ids := c.policyStateIDs(); slices.Contains(ids, id) {
		t.Errorf("with create_before_destroy the grant should have been replaced: state %v", ids)
	}
	c.write(cbd)
	c.mustRun(0, "apply", "-auto-approve")
	expectPolicies(t, w.e, policy)
}

// Two grants replaced in one apply: their deletes run together, and each
// is harmless alone. The apply never deletes both before a new grant is
// made, and Terraform can change policies afterwards.
func TestLockoutGuardCLI_twoReplacements(t *testing.T) {
	w := newGuardWorld(t, "grant a", "grant b")
	c := guardCLI(t, w, map[string]string{"a": "grant a", "b": "grant b"})
	both := grantResource("a", "grant a") + grantResource("b", "grant b")
	c.write(both)
	out, code := c.run(nil, "apply", "-auto-approve", "-replace=custody_policy.a", "-replace=custody_policy.b")
	t.Logf("the replacements exited %d", code)
	if code == 1 && !strings.Contains(out, "Error: Policy delete would lock Terraform out") {
		t.Fatalf("the replacements failed for another reason:\n%s", out)
	}
	c.write(both + harmlessPolicy)
	c.mustRun(0, "apply", "-auto-approve")
	expectPolicies(t, w.e, "grant a", "grant b", "wallets need two")
}
