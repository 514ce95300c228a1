package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// testCLI is the CLI the acceptance tests run (terraformBinary), with its
// kind and version.
func testCLI(t *testing.T) testclis.CLI {
	t.Helper()
	cli, err := testclis.Detect(t.Context(), terraformBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// requireCLI skips t unless the CLI the tests run has feature f (judged by
// its kind and version: OpenTofu has no query, whatever version it
// reports), and records why for `make test`'s summary. A test of
// resource identity starts with requireCLI(t, testclis.Identity), one of
// terraform query with requireCLI(t, testclis.Query).
func requireCLI(t *testing.T, f testclis.Feature) {
	t.Helper()
	if ok, why := testCLI(t).Supports(f); !ok {
		if err := testclis.RecordSkip(t.Name(), why); err != nil {
			t.Error(err)
		}
		t.Skip(why)
	}
}

// requireCLI skips by the kind of CLI, not by its version alone, and
// records the skip; a CLI that has the feature runs the test.
func TestRequireCLISkipsByKind(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "tofu")
	writeFile(t, fake, "#!/bin/sh\necho 'OpenTofu v1.12.6'\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "skips")
	t.Setenv("TF_ACC_TERRAFORM_PATH", fake)
	t.Setenv(testclis.SkipLogEnv, log)

	ran := map[string]bool{}
	for _, f := range []testclis.Feature{testclis.Identity, testclis.Query} {
		t.Run(f.Name, func(t *testing.T) {
			requireCLI(t, f)
			ran[f.Name] = true
		})
	}
	if !ran[testclis.Identity.Name] || ran[testclis.Query.Name] {
		t.Errorf("on OpenTofu 1.12.6 a test needing identity should run and one needing query skip; ran %v", ran)
	}
	want := "TestRequireCLISkipsByKind/list_resources_and_query: needs list resources and query (Terraform >= 1.14, not OpenTofu); this is OpenTofu 1.12.6\n"
	if got, err := os.ReadFile(log); err != nil || string(got) != want {
		t.Errorf("skip log = %q, %v; want %q", got, err, want)
	}
}

// Each thing the compatibility suite must cover has a test in this
// package that the suite selects: renaming the test, or narrowing the
// pattern, fails here rather than silently dropping it from the suite.
func TestCompatSuiteSelectsItsCover(t *testing.T) {
	defined := map[string]bool{}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	for _, f := range files {
		for _, m := range testFunc.FindAllStringSubmatch(string(mustReadFile(t, f)), -1) {
			defined[m[1]] = true
		}
	}
	acceptance, kit := regexp.MustCompile(testclis.AcceptanceRun), regexp.MustCompile(testclis.KitRun)
	for what, test := range testclis.Covers {
		if !defined[test] {
			t.Errorf("%s: no test %s in internal/provider", what, test)
		} else if !acceptance.MatchString(test) && !kit.MatchString(test) {
			t.Errorf("%s: the compatibility suite does not select %s", what, test)
		}
	}
	if acceptance.MatchString("TestAccGitOpsKit") {
		t.Error("the kit is a suite of its own (KitRun), timed apart")
	}
}

// devOverridesBlock is one dev_overrides block, in HCL, a shell heredoc or
// a Go string.
var devOverridesBlock = regexp.MustCompile(`dev_overrides\s*\{([^}]*)\}`)

// Every dev_overrides block we ship or run (docs, guides, READMEs,
// scripts, the benchmark, this harness) names each provider under both
// addresses: OpenTofu resolves custody-labs/custody as
// registry.opentofu.org/custody-labs/custody, and without it asks for a
// version (an "Inconsistent dependency lock file").
func TestDevOverridesNameBothRegistries(t *testing.T) {
	sources := map[string]string{"the CLI tests' harness": devOverridesConfig("/bin")}
	for _, pattern := range []string{"../../README.md", "../../templates/*.tmpl", "../../templates/*/*.tmpl", "../../docs/*.md",
		"../../docs/*/*.md", "../../examples/*/README.md", "../../scripts/*.sh", "../../bench/runner/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			sources[strings.TrimPrefix(f, "../../")] = string(mustReadFile(t, f))
		}
	}
	address := regexp.MustCompile(`registry\.terraform\.io/(custody-labs/[a-z]+)`)
	blocks := 0
	for name, text := range sources {
		for _, block := range devOverridesBlock.FindAllStringSubmatch(text, -1) {
			blocks++
			for _, m := range address.FindAllStringSubmatch(block[1], -1) {
				if !strings.Contains(block[1], "registry.opentofu.org/"+m[1]) {
					t.Errorf("%s: a dev_overrides block names %s but not registry.opentofu.org/%s:\n%s", name, m[0], m[1], block[0])
				}
			}
		}
	}
	// The harness, demo, drill, benchmark and the docs' local build.
	if blocks < 5 {
		t.Errorf("found %d dev_overrides blocks; the harness, scripts, benchmark and docs have more", blocks)
	}
}
