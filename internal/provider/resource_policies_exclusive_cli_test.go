package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The drift of access: a grant added beside the configuration, through
// the service's own client as a dashboard or a script would, is seen by
// the plan of the unchanged configuration.

// signingNeedsTwo is the one managed policy of these tests.
var signingNeedsTwo = map[string]reviewPolicy{
	"signing": {"signing needs two", client.EffectAllow, "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", "approvers.count() >= 2"},
}

// signingNeverAlone is the provider block with the control, and extra
// control settings.
func signingNeverAlone(extra string) string {
	return `
provider "custody" {
  controls = [
    {
      name           = "signing never alone"
      activity_types = ["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]
      at_most        = "consensus"
      ` + extra + `
    },
  ]
}
`
}

// addOutsideGrant makes "ops signs alone" through the client and returns
// its id.
func addOutsideGrant(t *testing.T, w *reviewWorld) string {
	t.Helper()
	got, err := w.e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{
		PolicyName: "ops signs alone", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"}}})
	if err != nil {
		t.Fatal(err)
	}
	return got.Result.PolicyIDs[0]
}

// servicePolicies is the organization's policies, by the service's list.
func servicePolicies(t *testing.T, w *reviewWorld) []client.Policy {
	t.Helper()
	got, err := w.e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Policies
}

// exampleAllowedAlone checks, by the engine, that the plan's example
// request is allowed by the organization as the service holds it, with
// one approver: the ground truth of a Control broken error.
func exampleAllowedAlone(t *testing.T, w *reviewWorld, out string) {
	t.Helper()
	ps := servicePolicies(t, w)
	set := make([]policyset.Policy, len(ps))
	for i := range ps {
		set[i] = policyset.FromClient(&ps[i])
	}
	req := policyset.Request{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Approvers: []policyset.User{{ID: "requester"}},
		Params: map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}}
	if d := policyset.Decide(set, req); d.Verdict != client.OutcomeAllow {
		t.Errorf("the organization should allow one user to sign alone (%s)", d.Verdict)
	}
	if !strings.Contains(flat(out), `request = { type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "requester" }]`) {
		t.Errorf("the error should give the request one user signs alone with:\n%s", out)
	}
}

// TestExclusiveCLI_outsideGrantBreaksControl: without the exclusive
// resource, the plan of the unchanged configuration fails, naming the
// outside grant by name and id, with the fix; the opt-in turns it into a
// warning.
func TestExclusiveCLI_outsideGrantBreaksControl(t *testing.T) {
	w := newReviewWorldOf(t, signingNeedsTwo, "")
	w.cli.write(signingNeverAlone("") + reviewResources(signingNeedsTwo))
	w.cli.mustRun(0, "plan", "-detailed-exitcode")

	id := addOutsideGrant(t, w)
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 1 || strings.Count(out, "Error: Control broken: signing never alone") != 1 {
		t.Fatalf("the unchanged configuration's plan should fail on the outside grant (exit %d):\n%s", code, out)
	}
	for _, want := range []string{fmt.Sprintf(`"ops signs alone" (%s), not planned by this configuration`, id),
		"custody_policies_exclusive", "import the policy"} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("the error should say %q:\n%s", want, out)
		}
	}
	exampleAllowedAlone(t, w, out)

	w.cli.write(signingNeverAlone(`on_outside_breach = "warning"`) + reviewResources(signingNeedsTwo))
	out, code = w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 0 || strings.Count(out, "Warning: Control broken: signing never alone") != 1 || strings.Contains(out, "Error:") {
		t.Fatalf("on_outside_breach = \"warning\" should warn and let the plan go on (exit %d):\n%s", code, out)
	}
}

// exclusiveHCL is custody_policies_exclusive listing the managed
// policies and, by literal id, the unmanaged ones of the review world.
func exclusiveHCL(t *testing.T, w *reviewWorld, managed map[string]reviewPolicy) string {
	t.Helper()
	var ids []string
	for _, p := range servicePolicies(t, w) {
		if slices.ContainsFunc(reviewUnmanaged, func(u reviewPolicy) bool { return u.name == p.PolicyName }) {
			ids = append(ids, fmt.Sprintf("%q", p.PolicyID))
		}
	}
	for res := range managed {
		ids = append(ids, "custody_policy."+res+".id")
	}
	slices.Sort(ids)
	return "\nresource \"custody_policies_exclusive\" \"all\" {\n  policy_ids = [" + strings.Join(ids, ", ") + "]\n}\n"
}

// TestExclusiveCLI_removesTheOutsideGrant: with the collection declared
// whole, the same drift plans the removal, with its access change and
// the control mended (exit 2); the apply removes it; the next plan is
// empty; destroying the claim deletes nothing.
func TestExclusiveCLI_removesTheOutsideGrant(t *testing.T) {
	w := newReviewWorldOf(t, signingNeedsTwo, "")
	provider := signingNeverAlone(`on_outside_breach = "warning"`)
	w.cli.write(provider + reviewResources(signingNeedsTwo) + exclusiveHCL(t, w, signingNeedsTwo))
	w.cli.mustRun(0, "apply", "-auto-approve")
	w.cli.mustRun(0, "plan", "-detailed-exitcode")

	id := addOutsideGrant(t, w)
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 2 || strings.Contains(out, "Error:") {
		t.Fatalf("the drift should be planned for removal (exit %d):\n%s", code, out)
	}
	for _, want := range []string{
		"Warning: Access change: ops signs alone (outside this configuration)",
		"ACTIVITY_TYPE_SIGN_TRANSACTION_V2: OUTCOME_ALLOW -> OUTCOME_REQUIRES_CONSENSUS",
		"Warning: Control broken outside this configuration: signing never alone",
		fmt.Sprintf(`"ops signs alone" (%s)`, id),
		`+ name = "ops signs alone"`,
		`- "` + id + `"`,
	} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("the plan should show %q:\n%s", want, out)
		}
	}
	w.cli.mustRun(0, "apply", "-auto-approve")
	if slices.ContainsFunc(servicePolicies(t, w), func(p client.Policy) bool { return p.PolicyID == id }) {
		t.Fatal("the apply left the outside grant")
	}
	w.cli.mustRun(0, "plan", "-detailed-exitcode")

	before := len(servicePolicies(t, w))
	w.cli.write(provider + reviewResources(signingNeedsTwo))
	w.cli.mustRun(0, "apply", "-auto-approve")
	addOutsideGrant(t, w)
	if after := len(servicePolicies(t, w)); after != before+1 {
		t.Errorf("destroying the claim should delete nothing: %d policies before, %d after", before+1, after)
	}
}

// TestExclusiveCLI_keepsTheGrantTerraformActsBy: the grant that lets the
// Terraform user change policies, made outside the configuration and not
// listed, is refused at plan, before anything is deleted, with how to
// keep it; listed by literal id, the plan goes on.
func TestExclusiveCLI_keepsTheGrantTerraformActsBy(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	c := newTFCLI(t, w.e)
	c.env = append(c.env, "CUSTODY_API_PUBLIC_KEY="+w.key.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY="+w.key.PrivateKeyHex())
	grant := w.grants["terraform manages policies"]
	c.write(`
resource "custody_policies_exclusive" "all" {
  policy_ids = []
}
`)
	out, code := c.run(nil, "plan", "-detailed-exitcode")
	if code != 1 || !strings.Contains(out, "Error: Policy change would lock Terraform out") {
		t.Fatalf("removing the grant Terraform acts by should be refused at plan (exit %d):\n%s", code, out)
	}
	for _, want := range []string{`"terraform manages policies" (` + grant + `) is outside this configuration`, `list "` + grant + `" in policy_ids`, "import it"} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("the refusal should say %q:\n%s", want, out)
		}
	}
	c.write(`
resource "custody_policies_exclusive" "all" {
  policy_ids = ["` + grant + `"]
}
`)
	c.mustRun(0, "apply", "-auto-approve")
	got, err := w.e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil || len(got.Policies) != 1 || got.Policies[0].PolicyID != grant {
		t.Errorf("the listed grant should stay, alone: %+v %v", got, err)
	}
}

// TestExclusiveCLI_judgingCostsNoRequest: judging the organization on
// every plan asks nothing beyond the command's first reads, with or
// without the exclusive resource: one list_policies, one whoami, one
// get_organization_configs.
func TestExclusiveCLI_judgingCostsNoRequest(t *testing.T) {
	w := newReviewWorldOf(t, signingNeedsTwo, "")
	provider := signingNeverAlone(`on_outside_breach = "warning"`)
	for _, body := range []string{reviewResources(signingNeedsTwo), reviewResources(signingNeedsTwo) + exclusiveHCL(t, w, signingNeedsTwo)} {
		w.cli.write(provider + body)
		w.cli.mustRun(0, "apply", "-auto-approve")
		before := w.e.srv.RequestCounts()
		out := w.cli.mustRun(0, "plan", "-detailed-exitcode")
		got := w.e.srv.RequestCounts()
		for op := range got {
			got[op] -= before[op]
		}
		want := map[string]int{"query/list_policies": 1, "query/whoami": 1, "query/get_organization_configs": 1}
		for op, n := range got {
			if n != want[op] {
				t.Errorf("the plan made %d %s, want %d (all: %v):\n%s", n, op, want[op], got, out)
			}
		}
	}
}

// TestExclusiveCLI_replacedPolicyIsNotOutside: a listed policy replaced
// with -replace (or tainted) gets a new id known only at apply; its old
// object, which removals lists since the plan removes it, is its own
// resource's: never reviewed as an outside policy, and the apply (which
// Terraform plans again, and holds to the plan) neither fails nor removes
// anything else.
func TestExclusiveCLI_replacedPolicyIsNotOutside(t *testing.T) {
	w := newReviewWorldOf(t, signingNeedsTwo, "")
	w.cli.write(reviewResources(signingNeedsTwo) + exclusiveHCL(t, w, signingNeedsTwo))
	w.cli.mustRun(0, "apply", "-auto-approve")
	before := len(servicePolicies(t, w))
	for _, args := range [][]string{{"-replace=custody_policy.signing"}, {}} {
		if len(args) == 0 {
			w.cli.mustRun(0, "taint", "custody_policy.signing")
		}
		out := w.cli.mustRun(0, append([]string{"apply", "-auto-approve"}, args...)...)
		if strings.Contains(out, "outside this configuration") {
			t.Errorf("a replaced policy should not be planned as an outside removal (%v):\n%s", args, out)
		}
		if got := len(servicePolicies(t, w)); got != before {
			t.Errorf("after replacing (%v) the organization holds %d policies, want %d", args, got, before)
		}
		w.cli.mustRun(0, "plan", "-detailed-exitcode")
	}
	// Deleting the policy with its resource, and its id from the list: the
	// apply, in whichever order it takes the two, deletes it once.
	w.cli.write(exclusiveHCL(t, w, nil))
	out := w.cli.mustRun(0, "apply", "-auto-approve")
	if strings.Contains(out, "outside this configuration") || len(servicePolicies(t, w)) != before-1 {
		t.Errorf("the policy deleted with its resource should be gone, once (%d policies):\n%s", len(servicePolicies(t, w)), out)
	}
	w.cli.mustRun(0, "plan", "-detailed-exitcode")
	// Replacing the exclusive resource itself plans it twice (an update
	// found to need a replacement, then its create): one claim, not two.
	w.cli.mustRun(0, "apply", "-auto-approve", "-replace=custody_policies_exclusive.all")
}

// TestExclusiveCLI_listedGrantStillBreaks: an outside grant listed in
// policy_ids is kept by the apply, so the exclusive resource, judging the
// organization as its removals leave it, fails the plan on it, whatever
// on_outside_breach says.
func TestExclusiveCLI_listedGrantStillBreaks(t *testing.T) {
	w := newReviewWorldOf(t, signingNeedsTwo, "")
	id := addOutsideGrant(t, w)
	hcl := strings.Replace(exclusiveHCL(t, w, signingNeedsTwo), "policy_ids = [", `policy_ids = ["`+id+`", `, 1)
	w.cli.write(signingNeverAlone(`on_outside_breach = "warning"`) + reviewResources(signingNeedsTwo) + hcl)
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 1 || !strings.Contains(out, "Error: Control broken: signing never alone") ||
		!strings.Contains(flat(out), `"ops signs alone" (`+id+`), listed in policy_ids, not managed by this configuration`) {
		t.Fatalf("the listed grant should fail the plan at the exclusive resource (exit %d):\n%s", code, out)
	}
}
