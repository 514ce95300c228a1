package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The kit's pull-request review: the plan job's plan and review steps, on
// recorded plans and on real ones.

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
// one has (testdata/gitops_review/summary.md) one row for each "Control
// broken" (the error first, then the warning of a control whose
// on_outside_breach says so, which the removals do not mend), "Control
// broken outside this configuration" (with the outside policy that breaks
// it), "Access review not made", "Access change" and "Policy finding",
// each with its resource's address, the lines of each detail that say
// what changes, Markdown's special characters in a policy name escaped,
// and nothing of the plan's other diagnostics (a failed check, a lockout
// guard warning), of the warning "Control broken" of a control that the
// removals mend (the same breach, seen before them), of a repeated
// diagnostic or of a line that is not JSON. A plan without them says so.
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
		"| `custody_policies_exclusive.all` | Control broken (warning)",
		"| `custody_policies_exclusive.all` | Control broken outside this configuration",
		"| `custody_policy.old` | Access review not made",
		"| `custody_policies_exclusive.all` | Access change",
		"| `custody_policy.signing_quorum` | Access change",
		"| `custody_policy.small_transfers` | Access change",
		"| `custody_policy.raw_payloads` | Policy finding",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("testdata/gitops_review/summary.md should have the rows %q, has %q", want, rows)
	}
	// The mended control's row names the breach and the policy the
	// removals take.
	mended := "| `custody_policies_exclusive.all` | Control broken outside this configuration | key export denied | " +
		"`ACTIVITY_TYPE_EXPORT_WALLET: OUTCOME_ALLOW` – one non-root user alone, ACTIVITY\\_TYPE\\_EXPORT\\_WALLET<br>" +
		`"Export everything" (6b1f0c2e-0000-4000-8000-00000000e0e0) |`
	if !strings.Contains(string(mustReadFile(t, "testdata/gitops_review/summary.md")), mended+"\n") {
		t.Errorf("testdata/gitops_review/summary.md should have the row\n%s", mended)
	}
}

// TestAccGitOpsKitPlanStep runs the plan job's plan and review steps, as
// the workflow has them, with the real terraform on a configuration
// without a provider: plan.log holds the changes (from the saved plan)
// and every diagnostic in full (a failed check's warning among them), the
// exit code is recorded as the comment step reads it, and the job summary
// says there was nothing to review. A plan that fails (a precondition)
// fails the step, and its log still has the error.
func TestAccGitOpsKitPlanStep(t *testing.T) {
	needTerraform(t)
	needJQ(t)
	plan, review := workflowStep(t, "plan", "plan"), workflowStep(t, "plan", "review")
	for _, tc := range []struct {
		x        int
		wantCode string
		wantLog  []string
	}{
		{x: 2, wantCode: "2", wantLog: []string{"# terraform_data.a will be created", "Plan: 1 to add, 0 to change, 0 to destroy.",
			"WARNING: Check block assertion failed\n\nx is not 1."}},
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
`, tc.x)+xIsOne)
		checkStepExit(t, "plan", plan, dir, tc.x, tc.wantCode, tc.wantCode != "1")
		summary := filepath.Join(dir, "step_summary")
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
// approvers export a wallet, both added to the exclusive resource's
// policy_ids as a pull request adds them, break the kit's two controls
// (versions.tf): the plan fails, with one "Control broken" row for each
// (the error; the organization's warning of the same breach is left
// out), on its resource.
func TestAccGitOpsKitReview(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	needJQ(t)
	applyGitOpsKit(t, c)

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

	// The two new policies, and in main.tf their ids in the exclusive
	// resource's policy_ids, as a pull request adds them.
	const lastID = "    custody_policy.policies_through_terraform.id,\n"
	if !strings.Contains(string(mustReadFile(t, mainTF)), lastID) {
		t.Fatalf("the kit's main.tf should list %q in policy_ids", lastID)
	}
	writeFile(t, mainTF, strings.Replace(string(mustReadFile(t, mainTF)), lastID,
		lastID+"    custody_policy.sign_anything.id,\n    custody_policy.wallet_backup.id,\n", 1))
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
	if strings.Contains(summary, "Control broken (warning)") {
		t.Errorf("the job summary should leave out the warning of a breach the plan fails on:\n%s", summary)
	}
	if code != "exitcode=1" || !strings.Contains(log, "ERROR: Control broken: raw payloads never signed alone (custody_policy.sign_anything)") {
		t.Errorf("a plan that breaks the kit's controls should fail (exitcode=1, got %s) with the error on its resource; plan.log:\n%s", code, log)
	}
}

// applyGitOpsKit copies the kit into c's directory without its state
// backend (the state stays in the working directory), with the variables
// the kit's tests set, and applies it.
func applyGitOpsKit(t *testing.T, c *tfCLI) {
	t.Helper()
	copyGitOpsKit(t, c)
	versions := filepath.Join(c.dir, "versions.tf")
	backend := regexp.MustCompile(`(?s)\n  backend "s3" \{.*?\n  \}\n`)
	if !backend.Match(mustReadFile(t, versions)) {
		t.Fatal("the kit's versions.tf has no backend \"s3\" block to leave out")
	}
	writeFile(t, versions, backend.ReplaceAllString(string(mustReadFile(t, versions)), "\n"))
	c.env = append(c.env, `TF_VAR_terraform_runner_cidrs=["127.0.0.1/32"]`, "TF_VAR_security_webhook_url=https://127.0.0.1:9/security-alerts")
	c.mustRun(0, "apply", "-auto-approve")
}
