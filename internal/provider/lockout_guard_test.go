package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// guardWorld is the setup the GitOps kit recommends: Terraform runs as
// "terraform", a user who is not root, and the policies the root user
// created (grants) allow its policy changes.
type guardWorld struct {
	e      *accEmulator
	key    *client.APIKey    // the terraform user's
	grants map[string]string // grant name → policy id
}

const guardUser = "user-terraform"

func newGuardWorld(t testing.TB, grants ...string) *guardWorld {
	t.Helper()
	key := clienttest.NewAPIKey(t)
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.Fixtures = &emulator.Fixtures{Users: []emulator.FixtureUser{{UserID: guardUser, UserName: "terraform",
			APIKeys: []emulator.FixtureAPIKey{{APIKeyName: "ci", PublicKey: key.PublicKeyHex()}}}}}
	})
	w := &guardWorld{e: e, key: key, grants: map[string]string{}}
	for _, name := range grants {
		got, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: name,
			Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'", Consensus: "approvers.any(u, u.id == '" + guardUser + "')"}}})
		if err != nil {
			t.Fatal(err)
		}
		w.grants[name] = got.Result.PolicyIDs[0]
	}
	return w
}

// config is the provider block of the terraform user, then body.
func (w *guardWorld) config(body string, extra ...string) string {
	return providerHCL(w.e.url, accOrg, w.key, extra...) + body
}

// grant is the HCL of a grant adopted with an import block, as resource
// name.
func (w *guardWorld) grant(name, policy string) string {
	return fmt.Sprintf(`
import {
  to = custody_policy.%[1]s
  id = %[2]q
}

resource "custody_policy" "%[1]s" {
  name      = %[3]q
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'POLICY'"
  consensus = "approvers.any(u, u.id == '%[4]s')"
}
`, name, w.grants[policy], policy, guardUser)
}

// forget drops a grant from state without deleting it, so that the test's
// destroy never deletes what lets Terraform act.
func forget(name string) string {
	return fmt.Sprintf("\nremoved {\n  from = custody_policy.%s\n  lifecycle {\n    destroy = false\n  }\n}\n", name)
}

const harmlessPolicy = `
resource "custody_policy" "harmless" {
  name      = "wallets need two"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET'"
  consensus = "approvers.count() >= 2"
}
`

const freezePolicies = `
resource "custody_policy" "freeze" {
  name      = "freeze policies"
  effect    = "EFFECT_DENY"
  condition = "activity.resource == 'POLICY'"
}
`

// lockoutError matches the guard's error: its parts in order, any space a
// line break.
func lockoutError(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`Policy change would lock Terraform out(.|\n)*` + strings.Join(quoted, `(.|\n)*`))
}

// A deny on policy changes fails the plan on the resource that adds it,
// naming the policy, the activity types and the decision before and after;
// nothing is submitted. A change that leaves Terraform able to act passes.
func TestAccLockoutGuard_denyOnPolicyChanges(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: w.config(harmlessPolicy)},
		{
			Config: w.config(harmlessPolicy + freezePolicies),
			ExpectError: lockoutError(`with custody_policy.freeze`, `Creating policy "freeze policies" would leave the provider's own user, terraform (user-terraform), unable to change policies by itself`,
				`ACTIVITY_TYPE_CREATE_POLICIES: OUTCOME_DENY_EXPLICIT, by policy "freeze policies" (now OUTCOME_ALLOW, by policy "terraform manages policies")`,
				`ACTIVITY_TYPE_UPDATE_POLICY_V2: OUTCOME_DENY_EXPLICIT`, `ACTIVITY_TYPE_DELETE_POLICY: OUTCOME_DENY_EXPLICIT`,
				`only the root quorum can undo it`, `skip_policy_lockout_check = true`, `CUSTODY_SKIP_POLICY_LOCKOUT_CHECK=true`),
		},
		{
			// The plan failed: the deny was never submitted.
			PreConfig: func() { expectPolicies(t, w.e, "terraform manages policies", "wallets need two") },
			Config:    w.config(harmlessPolicy),
			PlanOnly:  true,
		},
	}})
}

// Deleting the grant that lets Terraform act fails the plan on the grant.
func TestAccLockoutGuard_deletingTheGrant(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	grant := w.grant("grant", "terraform manages policies")
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: w.config(grant + harmlessPolicy)},
		{
			Config: w.config(harmlessPolicy),
			ExpectError: lockoutError(fmt.Sprintf(`Deleting policy "terraform manages policies" (%s)`, w.grants["terraform manages policies"]),
				`ACTIVITY_TYPE_CREATE_POLICIES: OUTCOME_DENY_IMPLICIT: no policy allows it (now OUTCOME_ALLOW, by policy "terraform manages policies")`),
		},
		{Config: w.config(harmlessPolicy + forget("grant"))},
	}})
}

// Two deletions that are each harmless alone lock Terraform out together:
// the plan fails on whichever is planned second, and names the state after
// both. (The guard used to say it took "every policy change planned so
// far" together; it now names the worst state any order reaches.)
func TestAccLockoutGuard_twoChangesTogether(t *testing.T) {
	w := newGuardWorld(t, "grant a", "grant b")
	both := w.grant("a", "grant a") + w.grant("b", "grant b")
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: w.config(both + harmlessPolicy)},
		{Config: w.config(w.grant("b", "grant b") + harmlessPolicy), PlanOnly: true, ExpectNonEmptyPlan: true},
		{Config: w.config(w.grant("a", "grant a") + harmlessPolicy), PlanOnly: true, ExpectNonEmptyPlan: true},
		{
			Config: w.config(harmlessPolicy),
			ExpectError: lockoutError(`Deleting policy "grant`, `unable to change policies by itself`, `OUTCOME_DENY_IMPLICIT: no policy allows it`,
				`every state an apply can pass through or stop in`, `The state judged above is the one after deleting policy "grant`,
				` and deleting policy "grant`),
		},
		{Config: w.config(harmlessPolicy + forget("a") + forget("b"))},
	}})
}

// skip_policy_lockout_check lets the plan go on; a value that is not a
// bool is refused. (The warning it shows is TestLockoutGuardCLI's.)
func TestAccLockoutGuard_optOut(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: w.config(freezePolicies, "skip_policy_lockout_check = true"), PlanOnly: true, ExpectNonEmptyPlan: true},
		planFails(w.config(freezePolicies, `skip_policy_lockout_check = "sometimes"`), regexp.MustCompile(`Inappropriate value for attribute\s+"skip_policy_lockout_check"`)),
	}})
}

// A user no policy allowed to change policies (a root user, who acts
// through the root quorum) is never blocked: the guard cannot judge what
// policies never decided. Nor is a root user whom a grant names too, when
// the root quorum lets it act alone: the guard asks the root quorum before
// it reports.
func TestAccLockoutGuard_rootNeverBlocked(t *testing.T) {
	e := newAccEmulator(t)
	rootGrant := `
resource "custody_policy" "grant" {
  name      = "root manages policies"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'POLICY'"
  consensus = "approvers.any(u, u.id == 'user-root')"
}
`
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: e.config(freezePolicies)},
		{Config: e.config(rootGrant)},
		{Config: e.config(rootGrant + freezePolicies)},
	}})
}

// expectPolicies checks the names of the organization's policies.
func expectPolicies(t *testing.T, e *accEmulator, names ...string) {
	t.Helper()
	got, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, p := range got.Policies {
		have = append(have, p.PolicyName)
	}
	if fmt.Sprint(slices.Sorted(slices.Values(have))) != fmt.Sprint(slices.Sorted(slices.Values(names))) {
		t.Fatalf("the organization holds policies %q, want %q", have, names)
	}
}
