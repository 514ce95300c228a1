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

// TestAccGitOpsKitDriftStep runs the drift job's plan step, as the
// workflow has it, with the real terraform: a failed check block (the
// kit's every_policy_is_managed_here) is drift although plan exits 0 for
// it, and a clean plan is not.
func TestAccGitOpsKitDriftStep(t *testing.T) {
	needTerraform(t)
	script := workflowStep(t, "drift", "plan")
	for _, tc := range []struct {
		x        int
		wantCode string
	}{{x: 1, wantCode: "0"}, {x: 2, wantCode: "2"}} {
		dir := t.TempDir()
		// A check that fails unless x is 1; nothing to change, no provider.
		writeFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf("variable \"x\" { default = %d }\n", tc.x)+kitDriftCheck)
		checkStepExit(t, "drift", script, dir, tc.x, tc.wantCode, tc.wantCode == "0")
	}
}

// kitDriftCheck is the kit's drift check as the step tests write it: it fails
// unless var.x is 1.
const kitDriftCheck = `check "every_policy_is_managed_here" {
  assert {
    condition     = var.x == 1
    error_message = "The organization holds policies this configuration does not manage."
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
