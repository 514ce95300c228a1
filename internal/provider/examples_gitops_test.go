package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// gitopsKit is the kit users copy into their configuration repository.
const gitopsKit = "../../examples/gitops"

// TestAccGitOpsKit runs the kit's own `terraform test` suite, as a user's
// pipeline does, against an emulator and the provider built from this tree,
// so that the kit cannot rot: every run of every test file must pass, and
// the suite must leave nothing behind in the organization.
func TestAccGitOpsKit(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	if err := os.CopyFS(c.dir, os.DirFS(gitopsKit)); err != nil {
		t.Fatal(err)
	}

	// The test files' helper modules are local: `terraform get` installs
	// them without the registry (terraform init would ask it).
	c.mustRun(0, "get")
	out := c.mustRun(0, "test")
	want := regexp.MustCompile(`Success! (\d+) passed, 0 failed\.`).FindStringSubmatch(out)
	if runs := kitRunBlocks(t); want == nil || want[1] != runs {
		t.Fatalf("terraform test should pass all %s runs of the kit's test files:\n%s", runs, out)
	}

	ctx := context.Background()
	policies, err := e.client.ListPolicies(ctx, client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tags, err := e.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := e.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(policies.Policies) + len(tags.PrivateKeyTags) + len(hooks.WebhookEndpoints); n != 0 {
		t.Errorf("terraform test left %d policies, %d tags and %d webhook endpoints behind", len(policies.Policies),
			len(tags.PrivateKeyTags), len(hooks.WebhookEndpoints))
	}
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
	script := ""
	for _, s := range wf.Jobs["drift"].Steps {
		if s.ID == "plan" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("custody.yml: the drift job has no step with id plan")
	}
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
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "GITHUB_OUTPUT="+outputs,
			"PATH="+filepath.Dir(terraformBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		got := strings.TrimSpace(string(mustReadFile(t, outputs)))
		if got != "exitcode="+tc.wantCode || (err == nil) != (tc.wantCode == "0") {
			t.Errorf("with x = %d the drift step should record exitcode=%s and %s; it recorded %q (%v):\n%s", tc.x, tc.wantCode,
				map[bool]string{true: "pass", false: "fail"}[tc.wantCode == "0"], got, err, out)
		}
	}
}
