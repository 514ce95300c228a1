package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// gitopsKit is the kit users copy into their configuration repository.
const gitopsKit = "../../examples/gitops"

// TestAccGitOpsKit runs the kit's own `terraform test` suite, as a user's
// pipeline does, against an emulator and the provider built from this tree,
// so that the kit cannot rot: every run of every test file must pass, and
// the suite must leave nothing behind in the organization. Terraform runs
// as the organization's only root user, as the README's "Run the tests on
// your machine" has it.
func TestAccGitOpsKit(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	copyGitOpsKit(t, c)
	runGitOpsKit(t, c)
	kitLeftNothing(t, e)
}

// TestAccGitOpsKit_consensus is the README's consensus flow: the emulator
// at a root quorum of two, and a second root user approving whatever
// waits, as `while sleep 2; do custody-emulator approve -all; done` does.
// The suite passes, and nothing is left behind, not even an activity still
// waiting. Every change waited for that approval but the policy changes,
// which the kit's "Policy changes go through Terraform" allows once it
// exists, as the README says.
func TestAccGitOpsKit_consensus(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	c := newTFCLI(t, e)
	copyGitOpsKit(t, c)
	voter := startVoter(t, approver, true, time.Second, 10*time.Minute)
	runGitOpsKit(t, c)
	kitLeftNothing(t, e)
	policyChanges := []string{client.OpCreatePolicies.Type, client.OpUpdatePolicy.Type, client.OpDeletePolicy.Type, client.OpDeletePolicies.Type}
	approved := 0
	for _, act := range kitActivities(t, e) {
		switch {
		case voter.votedFor(act.ID):
			approved++
		case !slices.Contains(policyChanges, act.Type):
			t.Errorf("activity %s (%s) went through without the second root's approval", act.ID, act.Type)
		}
	}
	if approved == 0 {
		t.Error("no activity waited for the second root's approval: the root quorum was not in effect")
	}
}

// TestAccGitOpsKit_asTerraformUser runs the suite as the README's
// Terraform user ("Set up the real organization"): an API-only user who
// is not root, with its own API key, in an organization whose root created
// the grant the README gives (its exact text, for that user's id), with
// the grant's id in policies_managed_elsewhere as the README says
// (TF_VAR_policies_managed_elsewhere, as the workflow sets it). Without
// the variable, custody_policies_exclusive would remove the grant: the
// drift test's first apply fails naming it, and the grant stays, which is
// why the README calls the variable required. (The provider's lockout
// guard refuses that first removal: it counts the kit's "Policy changes
// go through Terraform", which the same apply creates, as not yet made.
// In a later plan the guard lets the grant go, as that policy allows
// Terraform's policy changes, and the kit's precondition refuses it for
// the tag, allowlist and webhook changes it allows, which
// tests/drift.tftest.hcl checks.) With the
// variable the suite passes, every change it made was the Terraform
// user's, and the grant is all that is left.
func TestAccGitOpsKit_asTerraformUser(t *testing.T) {
	w := newGuardWorld(t)
	created, err := w.e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{readmeGrant(t, guardUser)}})
	if err != nil {
		t.Fatal(err)
	}
	grant := created.Result.PolicyIDs[0]
	c := newTFCLI(t, w.e)
	c.env = append(c.env, "CUSTODY_API_PUBLIC_KEY="+w.key.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY="+w.key.PrivateKeyHex())

	copyGitOpsKit(t, c)
	out, _ := c.run(nil, "test", "-filter=tests/drift.tftest.hcl")
	reported := fmt.Sprintf(`"Terraform manages the custody controls" (%s)`, grant)
	if !strings.Contains(strings.Join(strings.Fields(out), " "), reported) || !strings.Contains(out, "Failure!") {
		t.Errorf("without policies_managed_elsewhere, the drift test should fail on the grant's removal, naming %s:\n%s", reported, out)
	}
	if _, err := w.e.client.GetPolicy(t.Context(), client.GetPolicyRequest{PolicyID: grant}); err != nil {
		t.Fatalf("the grant should survive a suite run without policies_managed_elsewhere: %v", err)
	}

	for _, row := range strings.Split(string(mustReadFile(t, filepath.Join(gitopsKit, "README.md"))), "\n") {
		if strings.Contains(row, "| `POLICIES_MANAGED_ELSEWHERE` |") && (!strings.Contains(row, "required") || strings.Contains(row, "optional")) {
			t.Errorf("the README should say that POLICIES_MANAGED_ELSEWHERE is required: %s", row)
		}
	}

	c.env = append(c.env, fmt.Sprintf("TF_VAR_policies_managed_elsewhere=[%q]", grant))
	runGitOpsKit(t, c)
	kitLeftNothing(t, w.e, grant)
	for _, act := range kitActivities(t, w.e) {
		if len(act.Votes) == 0 || (act.Votes[0].UserID != guardUser && act.ID != created.Activity.ID) {
			t.Errorf("activity %s (%s) was not the Terraform user's", act.ID, act.Type)
		}
	}
}

// copyGitOpsKit copies the kit into c's directory, ready for `terraform
// test`.
func copyGitOpsKit(t *testing.T, c *tfCLI) {
	t.Helper()
	if err := os.CopyFS(c.dir, os.DirFS(gitopsKit)); err != nil {
		t.Fatal(err)
	}
	// The test files' helper modules are local: `terraform get` installs
	// them without the registry (terraform init would ask it).
	c.mustRun(0, "get")
}

// runGitOpsKit runs the kit's `terraform test` in c's directory, which
// must pass every run of every test file.
func runGitOpsKit(t *testing.T, c *tfCLI) {
	t.Helper()
	out := c.mustRun(0, "test")
	want := regexp.MustCompile(`Success! (\d+) passed, 0 failed\.`).FindStringSubmatch(out)
	if runs := kitRunBlocks(t); want == nil || want[1] != runs {
		t.Fatalf("terraform test should pass all %s runs of the kit's test files:\n%s", runs, out)
	}
	t.Log(want[0])
}

// kitLeftNothing checks that the organization holds nothing the kit's
// suite made: no policy but those kept, no tag, no webhook endpoint, no IP
// allowlist, and no activity still waiting for approval (it would act once
// someone approved it).
func kitLeftNothing(t *testing.T, e *accEmulator, keep ...string) {
	t.Helper()
	ctx := context.Background()
	policies, err := e.client.ListPolicies(ctx, client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, p := range policies.Policies {
		if !slices.Contains(keep, p.PolicyID) {
			left = append(left, fmt.Sprintf("%q (%s)", p.PolicyName, p.PolicyID))
		}
	}
	held := serviceIDs(t, e)
	tags, hooks := held["custody_private_key_tag"], held["custody_webhook_endpoint"]
	if len(left)+len(tags)+len(hooks) != 0 || len(policies.Policies) != len(left)+len(keep) {
		t.Errorf("terraform test left policies %v, tags %v and webhook endpoints %v behind (and should keep %v)", left, tags, hooks, keep)
	}
	if _, err := e.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("terraform test should remove the IP allowlist; reading it: %v", err)
	}
	for _, act := range kitActivities(t, e) {
		if act.Status == client.StatusConsensusNeeded {
			t.Errorf("terraform test left activity %s (%s) waiting for approval", act.ID, act.Type)
		}
	}
}

// kitActivities lists every activity of the organization (the kit's suite
// makes a few dozen).
func kitActivities(t *testing.T, e *accEmulator) []client.Activity {
	t.Helper()
	const limit = 100
	got, err := e.client.ListActivities(context.Background(), client.ListActivitiesRequest{
		PaginationOptions: &client.Pagination{Limit: strconv.Itoa(limit)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Activities) == limit {
		t.Fatalf("the organization holds %d activities or more: page through them", limit)
	}
	return got.Activities
}

// readmeGrant is the policy the kit's README has the root quorum create
// for the Terraform user (its "What it may do" step, the one ```text
// block), for user userID.
func readmeGrant(t *testing.T, userID string) client.PolicyParams {
	t.Helper()
	readme := string(mustReadFile(t, filepath.Join(gitopsKit, "README.md")))
	block := regexp.MustCompile("(?s)```text\n(.*?)\n\\s*```").FindStringSubmatch(readme)
	if block == nil {
		t.Fatal("the kit's README shows no policy for the Terraform user (a ```text block)")
	}
	field := regexp.MustCompile(`^(name|effect|consensus|condition):\s+(.*)$`)
	fields, last := map[string]string{}, ""
	for _, line := range strings.Split(block[1], "\n") {
		line = strings.TrimSpace(line)
		if m := field.FindStringSubmatch(line); m != nil {
			last = m[1]
			fields[last] = m[2]
		} else if last != "" && line != "" {
			fields[last] += " " + line // a continued condition
		}
	}
	const placeholder = "<terraform user id>"
	if len(fields) != 4 || !strings.Contains(fields["consensus"], placeholder) {
		t.Fatalf("the README's grant should have a name, effect, consensus and condition, its consensus naming %s: %q", placeholder, fields)
	}
	return client.PolicyParams{PolicyName: fields["name"], Effect: fields["effect"], Condition: fields["condition"],
		Consensus: strings.ReplaceAll(fields["consensus"], placeholder, userID)}
}

// kitRunBlocks counts the run blocks of the kit's test files, as a string.
func kitRunBlocks(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(gitopsKit, "tests", "*.tftest.hcl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s/tests (%v)", gitopsKit, err)
	}
	runBlock := regexp.MustCompile(`(?m)^run "`)
	runs := 0
	for _, f := range files {
		runs += len(runBlock.FindAll(mustReadFile(t, f), -1))
	}
	return strconv.Itoa(runs)
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
