package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

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
// the variable the drift check reports the grant, which is why the README
// calls it required; with it the suite passes, every change it made was
// the Terraform user's, and the grant is all that is left.
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
		t.Errorf("without policies_managed_elsewhere, the drift test should fail on the grant, %s:\n%s", reported, out)
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
	tags, err := e.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := e.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(left)+len(tags.PrivateKeyTags)+len(hooks.WebhookEndpoints) != 0 || len(policies.Policies) != len(left)+len(keep) {
		t.Errorf("terraform test left policies %v, %d tags and %d webhook endpoints behind (and should keep %v)", left,
			len(tags.PrivateKeyTags), len(hooks.WebhookEndpoints), keep)
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

// TestGitOpsKitWorkflow checks the kit's workflow beyond being YAML: it
// runs on pull requests, on pushes to main and on a schedule; every secret
// and variable it reads is one the kit's README tells users to set; and
// the emulator archive it downloads is one the release builds.
func TestGitOpsKitWorkflow(t *testing.T) {
	raw := mustReadFile(t, filepath.Join(gitopsKit, ".github", "workflows", "custody.yml"))
	var wf struct {
		On   map[string]yaml.Node `yaml:"on"`
		Jobs map[string]struct {
			If     string `yaml:"if"`
			RunsOn string `yaml:"runs-on"`
			Steps  []struct {
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("custody.yml is not valid YAML: %v", err)
	}
	var push struct {
		Branches []string `yaml:"branches"`
	}
	var schedule []struct {
		Cron string `yaml:"cron"`
	}
	pushNode, scheduleNode := wf.On["push"], wf.On["schedule"]
	_, onPullRequest := wf.On["pull_request"]
	if pushNode.Decode(&push) != nil || scheduleNode.Decode(&schedule) != nil || !onPullRequest ||
		!slices.Equal(push.Branches, []string{"main"}) || len(schedule) != 1 || schedule[0].Cron == "" {
		t.Errorf("custody.yml should run on pull_request, on push to main and on a schedule")
	}
	for _, job := range []string{"offline-test", "plan", "apply", "drift"} {
		j, ok := wf.Jobs[job]
		if !ok || j.If == "" || j.RunsOn == "" || len(j.Steps) == 0 {
			t.Errorf("custody.yml: job %q is missing, or has no condition, runner or steps", job)
			continue
		}
		for i, s := range j.Steps {
			if (s.Uses == "") == (s.Run == "") {
				t.Errorf("custody.yml: job %q step %d needs exactly one of uses and run", job, i+1)
			}
		}
	}

	readme := string(mustReadFile(t, filepath.Join(gitopsKit, "README.md")))
	for _, m := range regexp.MustCompile(`\$\{\{\s*(?:secrets|vars)\.([A-Z0-9_]+)\s*\}\}`).FindAllStringSubmatch(string(raw), -1) {
		if !strings.Contains(readme, "`"+m[1]+"`") {
			t.Errorf("custody.yml reads %s, which the kit's README does not tell users to set", m[0])
		}
	}

	var release struct {
		Archives []struct {
			ID           string `yaml:"id"`
			NameTemplate string `yaml:"name_template"`
		} `yaml:"archives"`
	}
	if err := yaml.Unmarshal(mustReadFile(t, "../../.goreleaser.yml"), &release); err != nil {
		t.Fatal(err)
	}
	archive := ""
	for _, a := range release.Archives {
		if a.ID == "emulator" {
			archive = strings.NewReplacer("{{ .Version }}", "${v}", "{{ .Os }}", "linux", "{{ .Arch }}", "amd64").
				Replace(a.NameTemplate) + ".tar.gz"
		}
	}
	if archive == "" || !strings.Contains(string(raw), `archive="`+archive+`"`) {
		t.Errorf("custody.yml should download the emulator archive the release builds (%q)", archive)
	}
	// The emulator prints "custody-emulator <version>" (cmd/custody-emulator
	// TestVersion); the workflow checks the one it downloaded says v.
	if !strings.Contains(string(raw), `got=$(./custody-emulator -version)`) || !strings.Contains(string(raw), `"$got" != "custody-emulator $v"`) {
		t.Errorf("custody.yml should check the downloaded emulator's -version against CUSTODY_EMULATOR_VERSION")
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestAccGitOpsKitDriftStep runs the drift job's plan step, as the
// workflow has it, with the real terraform: a failed check block (the
// kit's every_policy_is_managed_here) is drift although plan exits 0 for
// it, and a clean plan is not.
func TestAccGitOpsKitDriftStep(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	testAccPreCheck(t)
	script := workflowStep(t, "drift", "plan")
	for _, tc := range []struct {
		x        int
		wantCode string
	}{{x: 1, wantCode: "0"}, {x: 2, wantCode: "2"}} {
		dir := t.TempDir()
		// A check that fails unless x is 1; nothing to change, no provider.
		writeFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`variable "x" { default = %d }
check "every_policy_is_managed_here" {
  assert {
    condition     = var.x == 1
    error_message = "The organization holds policies this configuration does not manage."
  }
}
`, tc.x))
		outputs := filepath.Join(dir, "github_output")
		out, err := runStep(t, dir, script, "GITHUB_OUTPUT="+outputs)
		got := strings.TrimSpace(string(mustReadFile(t, outputs)))
		if got != "exitcode="+tc.wantCode || (err == nil) != (tc.wantCode == "0") {
			t.Errorf("with x = %d the drift step should record exitcode=%s and %s; it recorded %q (%v):\n%s", tc.x, tc.wantCode,
				map[bool]string{true: "pass", false: "fail"}[tc.wantCode == "0"], got, err, out)
		}
	}
}

// workflowStep is the run script of the step with id in job of the kit's
// workflow.
func workflowStep(t *testing.T, job, id string) string {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(mustReadFile(t, filepath.Join(gitopsKit, ".github", "workflows", "custody.yml")), &wf); err != nil {
		t.Fatal(err)
	}
	for _, s := range wf.Jobs[job].Steps {
		if s.ID == id && s.Run != "" {
			return s.Run
		}
	}
	t.Fatalf("custody.yml: the %s job has no step with id %s and a run script", job, id)
	return ""
}

// runStep runs a workflow step's script with bash -e in dir, as GitHub's
// runner does, with the real terraform first on PATH and env added.
func runStep(t *testing.T, dir, script string, env ...string) (string, error) {
	t.Helper()
	return runStepIn(t, dir, script, os.Environ(), env...)
}

// runStepIn is runStep in the environment base (a tfCLI's, say) instead
// of the test's.
func runStepIn(t *testing.T, dir, script string, base []string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(append(slices.Clone(base), "CHECKPOINT_DISABLE=1",
		"PATH="+filepath.Dir(terraformBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// needJQ fails the test when jq, which the kit's workflow runs (GitHub's
// hosted runners have it), is not on PATH: a skip would pass the kit's
// review step untested.
func needJQ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatalf("jq is not on PATH (%v): the kit's workflow reads the plan with it; install jq (apt-get install jq) and re-run", err)
	}
}

// copyReviewScript puts the kit's .github/plan-review.jq into dir, where
// the review step finds it (the step runs in the repository's root).
func copyReviewScript(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".github", "plan-review.jq"), string(mustReadFile(t, filepath.Join(gitopsKit, ".github", "plan-review.jq"))))
}

// TestGitOpsKitReviewStep runs the plan job's review step, as the
// workflow has it, on recorded `terraform plan -json` outputs: the real
// ones TestAccGitOpsKitReview records with UPDATE_KIT_REVIEW=1
// (testdata/gitops_review/limit.jsonl and controls.jsonl, each with its
// table in a .md), and one written by hand (plan.jsonl). The job summary
// gets, after what it held, the table of the .md file. The hand-written
// one has (testdata/gitops_review/summary.md) one row for each
// "Control broken" (first), "Control broken before this plan", "Access
// review not made", "Access change" and "Policy finding", each with its
// resource's address, the lines of each detail that say what changes,
// Markdown's special characters in a policy name escaped, and nothing of
// the plan's other diagnostics (a failed check, a lockout guard warning),
// of a repeated diagnostic or of a line that is not JSON. A plan without
// them says so.
func TestGitOpsKitReviewStep(t *testing.T) {
	needJQ(t)
	script := workflowStep(t, "plan", "review")
	for _, tc := range []struct {
		name, plan, want string
	}{
		{name: "review", plan: string(mustReadFile(t, "testdata/gitops_review/plan.jsonl")),
			want: string(mustReadFile(t, "testdata/gitops_review/summary.md"))},
		{name: "limit", plan: string(mustReadFile(t, "testdata/gitops_review/limit.jsonl")),
			want: string(mustReadFile(t, "testdata/gitops_review/limit.md"))},
		{name: "controls", plan: string(mustReadFile(t, "testdata/gitops_review/controls.jsonl")),
			want: string(mustReadFile(t, "testdata/gitops_review/controls.md"))},
		{name: "nothing to review", plan: `{"@level":"info","@message":"Terraform 1.11.4","type":"version","terraform":"1.11.4","ui":"1.2"}` + "\n",
			want: "### custody: access review of the plan\n\nNo access change, broken control or policy finding in this plan.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyReviewScript(t, dir)
			writeFile(t, filepath.Join(dir, "plan.jsonl"), tc.plan)
			summary := filepath.Join(dir, "step_summary")
			const before = "What an earlier step wrote.\n"
			writeFile(t, summary, before)
			if out, err := runStep(t, dir, script, "GITHUB_STEP_SUMMARY="+summary); err != nil {
				t.Fatalf("the review step failed: %v\n%s", err, out)
			}
			if got := string(mustReadFile(t, summary)); got != before+tc.want {
				t.Errorf("the job summary should be %q followed by:\n%s\ngot:\n%s", before, tc.want, got)
			}
		})
	}
	// The README's sample is the recorded controls plan's table.
	readme := string(mustReadFile(t, filepath.Join(gitopsKit, "README.md")))
	for _, line := range strings.Split(string(mustReadFile(t, "testdata/gitops_review/controls.md")), "\n") {
		if strings.HasPrefix(line, "| `") && !strings.Contains(readme, "> "+line+"\n") {
			t.Errorf("the kit's README should show the recorded table (testdata/gitops_review/controls.md) as its sample; it lacks\n%s", line)
		}
	}
	// The hand-written plan's rows, read back from the table: the review's
	// diagnostics, each once, errors first.
	var rows []string
	for _, line := range strings.Split(string(mustReadFile(t, "testdata/gitops_review/summary.md")), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, strings.Join(strings.Split(line, " | ")[:2], " | "))
		}
	}
	want := []string{
		"| `custody_policy.raw_payloads` | Control broken (error)",
		"| `custody_policy.signing_quorum` | Control broken before this plan",
		"| `custody_policy.old` | Access review not made",
		"| `custody_policy.signing_quorum` | Access change",
		"| `custody_policy.small_transfers` | Access change",
		"| `custody_policy.raw_payloads` | Policy finding",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("testdata/gitops_review/summary.md should have the rows %q, has %q", want, rows)
	}
}

// TestAccGitOpsKitPlanStep runs the plan job's plan and review steps, as
// the workflow has them, with the real terraform on a configuration
// without a provider: plan.log holds the changes (from the saved plan)
// and every diagnostic in full, the exit code is recorded as the comment
// step reads it, and the job summary says there was nothing to review. A
// plan that fails (a precondition) fails the step, and its log still has
// the error.
func TestAccGitOpsKitPlanStep(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	testAccPreCheck(t)
	needJQ(t)
	plan, review := workflowStep(t, "plan", "plan"), workflowStep(t, "plan", "review")
	for _, tc := range []struct {
		x        int
		wantCode string
		wantLog  []string
	}{
		{x: 2, wantCode: "2", wantLog: []string{"# terraform_data.a will be created", "Plan: 1 to add, 0 to change, 0 to destroy.",
			"WARNING: Check block assertion failed\n\nThe organization holds policies this configuration does not manage."}},
		{x: 3, wantCode: "1", wantLog: []string{"ERROR: Resource precondition failed\n\nx must not be 3."}},
	} {
		dir := t.TempDir()
		copyReviewScript(t, dir)
		writeFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`variable "x" { default = %d }
resource "terraform_data" "a" {
  input = var.x
  lifecycle {
    precondition {
      condition     = var.x != 3
      error_message = "x must not be 3."
    }
  }
}
check "every_policy_is_managed_here" {
  assert {
    condition     = var.x == 1
    error_message = "The organization holds policies this configuration does not manage."
  }
}
`, tc.x))
		outputs, summary := filepath.Join(dir, "github_output"), filepath.Join(dir, "step_summary")
		out, err := runStep(t, dir, plan, "GITHUB_OUTPUT="+outputs)
		got := strings.TrimSpace(string(mustReadFile(t, outputs)))
		if got != "exitcode="+tc.wantCode || (err == nil) != (tc.wantCode != "1") {
			t.Errorf("with x = %d the plan step should record exitcode=%s and %s; it recorded %q (%v):\n%s", tc.x, tc.wantCode,
				map[bool]string{true: "pass", false: "fail"}[tc.wantCode != "1"], got, err, out)
		}
		log := string(mustReadFile(t, filepath.Join(dir, "plan.log")))
		for _, w := range tc.wantLog {
			if !strings.Contains(log, w) {
				t.Errorf("with x = %d plan.log should hold %q:\n%s", tc.x, w, log)
			}
		}
		if out, err := runStep(t, dir, review, "GITHUB_STEP_SUMMARY="+summary); err != nil {
			t.Fatalf("the review step failed: %v\n%s", err, out)
		}
		if got := string(mustReadFile(t, summary)); !strings.Contains(got, "No access change, broken control or policy finding in this plan.") {
			t.Errorf("with x = %d the job summary should say there is nothing to review:\n%s", tc.x, got)
		}
	}
}

// TestAccGitOpsKitReview is the kit's pull-request review on real plans:
// the kit applied to an emulator, then changes planned by the workflow's
// plan step and read by its review step, as a pull request's job does.
// Raising the transfer limit to 20 ETH (the README's example change) is
// an access change on small_transfers (a transfer between the limits,
// which waited for a second approver, needs none) and passes. A policy
// that lets one person sign any raw payload, and one that lets three
// approvers export a wallet, break the kit's two controls (versions.tf):
// the plan fails, with a "Control broken" row for each, on its resource.
func TestAccGitOpsKitReview(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	needJQ(t)
	copyGitOpsKit(t, c)
	// No state backend: the state stays in the working directory.
	versions := filepath.Join(c.dir, "versions.tf")
	backend := regexp.MustCompile(`(?s)\n  backend "s3" \{.*?\n  \}\n`)
	if !backend.Match(mustReadFile(t, versions)) {
		t.Fatal("the kit's versions.tf has no backend \"s3\" block to leave out")
	}
	writeFile(t, versions, backend.ReplaceAllString(string(mustReadFile(t, versions)), "\n"))
	c.env = append(c.env, `TF_VAR_terraform_runner_cidrs=["127.0.0.1/32"]`, "TF_VAR_security_webhook_url=https://127.0.0.1:9/security-alerts")
	c.mustRun(0, "apply", "-auto-approve")

	mainTF := filepath.Join(c.dir, "main.tf")
	const limit = "  transfer_limit_eth = 10\n"
	if !strings.Contains(string(mustReadFile(t, mainTF)), limit) {
		t.Fatalf("the kit's main.tf should set %q", limit)
	}
	writeFile(t, mainTF, strings.Replace(string(mustReadFile(t, mainTF)), limit, "  transfer_limit_eth = 20\n", 1))
	plan, review := workflowStep(t, "plan", "plan"), workflowStep(t, "plan", "review")
	pr := func(name string) (code, log, summary string) {
		t.Helper()
		outputs, summaryFile := filepath.Join(c.dir, name+".output"), filepath.Join(c.dir, name+".summary")
		if out, err := runStepIn(t, c.dir, plan, c.env, "GITHUB_OUTPUT="+outputs); err != nil && !strings.Contains(string(mustReadFile(t, outputs)), "exitcode=1") {
			t.Fatalf("%s: the plan step failed without a failed plan: %v\n%s", name, err, out)
		}
		if out, err := runStepIn(t, c.dir, review, c.env, "GITHUB_STEP_SUMMARY="+summaryFile); err != nil {
			t.Fatalf("%s: the review step failed: %v\n%s", name, err, out)
		}
		summary = string(mustReadFile(t, summaryFile))
		t.Logf("%s: the job summary:\n%s", name, summary)
		if os.Getenv("UPDATE_KIT_REVIEW") != "" {
			// Record the real plan and its table for TestGitOpsKitReviewStep.
			writeFile(t, filepath.Join("testdata", "gitops_review", name+".jsonl"), string(mustReadFile(t, filepath.Join(c.dir, "plan.jsonl"))))
			writeFile(t, filepath.Join("testdata", "gitops_review", name+".md"), summary)
		}
		return strings.TrimSpace(string(mustReadFile(t, outputs))), string(mustReadFile(t, filepath.Join(c.dir, "plan.log"))), summary
	}

	code, log, summary := pr("limit")
	wantRow := "| `custody_policy.small_transfers` | Access change | ETH transfers up to 20 ETH need one approver | " +
		"`ACTIVITY_TYPE_SIGN_TRANSACTION_V2: OUTCOME_REQUIRES_CONSENSUS -> OUTCOME_ALLOW`"
	if code != "exitcode=2" || !strings.Contains(summary, wantRow) || strings.Contains(summary, "Control broken") ||
		!strings.Contains(log, "WARNING: Access change: ETH transfers up to 20 ETH need one approver (custody_policy.small_transfers)") {
		t.Errorf("raising the transfer limit should plan changes (exitcode=2, got %s), with the row\n%s\nand no broken control; plan.log:\n%s", code, wantRow, log)
	}

	writeFile(t, filepath.Join(c.dir, "review_breaks.tf"), `resource "custody_policy" "sign_anything" {
  name      = "Anyone signs raw payloads"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
}

resource "custody_policy" "wallet_backup" {
  name      = "Wallet backups with three approvers"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'"
  consensus = "approvers.count() >= 3"
}
`)
	code, log, summary = pr("controls")
	for _, want := range []string{
		"| `custody_policy.sign_anything` | Control broken (error) | raw payloads never signed alone | `ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: ",
		"| `custody_policy.wallet_backup` | Control broken (error) | key export denied | `ACTIVITY_TYPE_EXPORT_WALLET: ",
		"| `custody_policy.small_transfers` | Access change | ETH transfers up to 20 ETH need one approver |",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the job summary should have a row starting %s", want)
		}
	}
	if code != "exitcode=1" || !strings.Contains(log, "ERROR: Control broken: raw payloads never signed alone (custody_policy.sign_anything)") {
		t.Errorf("a plan that breaks the kit's controls should fail (exitcode=1, got %s) with the error on its resource; plan.log:\n%s", code, log)
	}
}
