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

	"gopkg.in/yaml.v3"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The kit's GitHub workflow: its shape, its drift step, and running a
// step's script as GitHub's runner does.

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

// TestGitOpsKitDriftStep runs the drift job's plan step, as the workflow
// has it, on plans whose output and exit code a stand-in terraform gives:
// what the step records (exitcode and found, for the issue step), whether
// it passes, and the controls it lists. A clean plan passes. Drift (exit
// code 2) fails it, and a control that the plan's removals mend ("Control
// broken outside this configuration") is drift, listed as mended. A
// broken control the apply would not mend fails it as a broken control,
// whatever the exit code: "Error: Control broken" in a failed plan, or
// the warning of a control whose on_outside_breach says so, unless the
// same plan mends that control. Any other failed plan is a failure. The
// issue step then opens an issue for drift and for a broken control,
// each with its own title, and lists the controls.
func TestGitOpsKitDriftStep(t *testing.T) {
	plan, issue := workflowStep(t, "drift", "plan"), workflowStep(t, "drift", "issue")
	const (
		mendedLog = "Warning: Control broken: raw payloads never signed alone\n\n  with custody_policy.signing_quorum,\n\n" +
			"Warning: Access change: Anyone signs raw payloads alone (outside this configuration)\n\n" +
			"Warning: Control broken outside this configuration: raw payloads never signed alone\n\n" +
			"Plan: 0 to add, 1 to change, 0 to destroy.\n"
		keptLog = "Warning: Control broken: raw payloads never signed alone\n\n  with custody_policy.signing_quorum,\n\n" +
			"Warning: Control broken: raw payloads never signed alone\n\n  with custody_policies_exclusive.all,\n\n" +
			"No changes. Your infrastructure matches the configuration.\n"
	)
	for _, tc := range []struct {
		name, log               string
		exit                    int
		found                   string
		unmended, mended, title string
	}{
		{name: "clean", log: "No changes. Your infrastructure matches the configuration.\n", exit: 0, found: "none"},
		{name: "drift", log: "Warning: Access change: Made from the dashboard (outside this configuration)\n\nPlan: 0 to add, 1 to change, 0 to destroy.\n",
			exit: 2, found: "drift", title: "custody: drift between main and the organization"},
		{name: "mended control", log: mendedLog, exit: 2, found: "drift", mended: "raw payloads never signed alone",
			title: "custody: drift between main and the organization"},
		{name: "broken control", log: "Error: Control broken: key export denied\n\n  with custody_policies_exclusive.all,\n", exit: 1,
			found: "control", unmended: "key export denied", title: "custody: a control is broken in the organization"},
		{name: "broken control as a warning", log: keptLog, exit: 0, found: "control", unmended: "raw payloads never signed alone",
			title: "custody: a control is broken in the organization"},
		{name: "failed plan", log: "Error: Invalid provider configuration\n", exit: 1, found: "failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			writeFile(t, filepath.Join(dir, "canned.log"), tc.log)
			// A terraform that prints the canned plan, and a gh that keeps
			// what it is asked.
			writeExecutable(t, filepath.Join(bin, "terraform"), fmt.Sprintf("#!/bin/sh\ncat %q\nexit %d\n", filepath.Join(dir, "canned.log"), tc.exit))
			writeExecutable(t, filepath.Join(bin, "gh"), fmt.Sprintf("#!/bin/sh\necho \"$*\" >>%q\n", filepath.Join(dir, "gh.log")))
			path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
			outputs := filepath.Join(dir, "github_output")
			out, err := runScript(dir, plan, path, "GITHUB_OUTPUT="+outputs)
			want := fmt.Sprintf("exitcode=%d\nfound=%s", tc.exit, tc.found)
			if got := strings.TrimSpace(string(mustReadFile(t, outputs))); got != want || (err == nil) != (tc.found == "none") {
				t.Fatalf("the drift step should record %q and %s; it recorded %q (%v):\n%s", want,
					map[bool]string{true: "pass", false: "fail"}[tc.found == "none"], got, err, out)
			}
			for file, want := range map[string]string{"unmended-controls.txt": tc.unmended, "mended-controls.txt": tc.mended} {
				if got := strings.TrimSpace(string(mustReadFile(t, filepath.Join(dir, file)))); got != want {
					t.Errorf("%s should hold %q, holds %q", file, want, got)
				}
			}
			if tc.title == "" {
				return
			}
			if out, err := runScript(dir, issue, path, "FOUND="+tc.found, "RUN_URL=https://example.com/run/1"); err != nil {
				t.Fatalf("the issue step failed: %v\n%s", err, out)
			}
			gh, body := string(mustReadFile(t, filepath.Join(dir, "gh.log"))), string(mustReadFile(t, filepath.Join(dir, "issue.md")))
			if !strings.Contains(gh, "issue create --title "+tc.title+" --body-file issue.md") {
				t.Errorf("the issue step should create an issue titled %q; gh was asked:\n%s", tc.title, gh)
			}
			for _, name := range []string{tc.unmended, tc.mended} {
				if name != "" && !strings.Contains(body, "- "+name+"\n") {
					t.Errorf("the issue should list the control %q:\n%s", name, body)
				}
			}
			if !strings.Contains(body, tc.log) {
				t.Errorf("the issue should hold the plan's log:\n%s", body)
			}
		})
	}
}

// TestAccGitOpsKitDrift runs the drift job's plan step, as the workflow
// has it, on the kit applied to an emulator. The unchanged organization
// passes. A policy made outside the configuration that lets one person
// sign a raw payload alone is drift (exit code 2), planned for removal,
// with the control "raw payloads never signed alone" listed as mended.
// Listed in policies_managed_elsewhere, the apply would keep it, and the
// step reports a broken control, whether the provider warns of it (the
// kit's controls set on_outside_breach = "warning") or fails the plan.
func TestAccGitOpsKitDrift(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	applyGitOpsKit(t, c)
	script := workflowStep(t, "drift", "plan")
	step := func(name string, env ...string) (outputs, log string) {
		t.Helper()
		file := filepath.Join(c.dir, name+".output")
		out, err := runStepIn(t, c.dir, script, append(slices.Clone(c.env), env...), "GITHUB_OUTPUT="+file)
		outputs = strings.TrimSpace(string(mustReadFile(t, file)))
		if (err == nil) != strings.HasSuffix(outputs, "found=none") {
			t.Errorf("%s: the step should pass exactly when it found nothing (%v):\n%s", name, err, out)
		}
		return outputs, string(mustReadFile(t, filepath.Join(c.dir, "plan.log")))
	}
	if got, log := step("unchanged"); got != "exitcode=0\nfound=none" {
		t.Fatalf("the unchanged organization should pass the drift check, recorded %q:\n%s", got, log)
	}

	const control = "raw payloads never signed alone"
	created, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{
		PolicyName: "Anyone signs raw payloads alone", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := created.Result.PolicyIDs[0]
	got, log := step("outside")
	for _, want := range []string{`- "` + id + `"`, "Warning: Control broken outside this configuration: " + control} {
		if !strings.Contains(flat(log), want) {
			t.Errorf("the plan should show %q:\n%s", want, log)
		}
	}
	if mended := strings.TrimSpace(string(mustReadFile(t, filepath.Join(c.dir, "mended-controls.txt")))); got != "exitcode=2\nfound=drift" || mended != control {
		t.Errorf("a policy made outside the configuration should be drift (recorded %q) with the control %q mended (listed %q):\n%s",
			got, control, mended, log)
	}

	got, log = step("kept", fmt.Sprintf("TF_VAR_policies_managed_elsewhere=[%q]", id))
	unmended := strings.TrimSpace(string(mustReadFile(t, filepath.Join(c.dir, "unmended-controls.txt"))))
	if !strings.HasSuffix(got, "\nfound=control") || unmended != control {
		t.Errorf("a policy that breaks a control, kept, should be a broken control (recorded %q), the control %q listed (%q):\n%s",
			got, control, unmended, log)
	}
	t.Logf("kept: the step recorded %q", got)
}

// runScript runs a workflow step's script with bash -e in dir, as
// GitHub's runner does, in the test's environment with env added (the
// last value of a name wins).
func runScript(dir, script string, env ...string) (string, error) {
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// writeExecutable writes a script that runs.
func writeExecutable(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// xIsOne is a check block as the step tests write it: it fails unless
// var.x is 1.
const xIsOne = `check "x_is_one" {
  assert {
    condition     = var.x == 1
    error_message = "x is not 1."
  }
}
`

// checkStepExit runs script, the workflow's step of the named job, in dir,
// and checks that it recorded exitcode=wantCode for GitHub's later steps
// and passed or failed as wantPass says. x is the test case's variable.
func checkStepExit(t *testing.T, job, script, dir string, x int, wantCode string, wantPass bool) {
	t.Helper()
	outputs := filepath.Join(dir, "github_output")
	out, err := runStep(t, dir, script, "GITHUB_OUTPUT="+outputs)
	got := strings.TrimSpace(string(mustReadFile(t, outputs)))
	if got != "exitcode="+wantCode || (err == nil) != wantPass {
		t.Errorf("with x = %d the %s step should record exitcode=%s and %s; it recorded %q (%v):\n%s", x, job, wantCode,
			map[bool]string{true: "pass", false: "fail"}[wantPass], got, err, out)
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
