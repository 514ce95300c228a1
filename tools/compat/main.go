// Command compat runs the compatibility suite on each CLI that
// CUSTODY_TEST_CLIS lists (paths separated by spaces): the provider's
// acceptance tests that testclis.AcceptanceRun selects, the GitOps kit's
// test suite (testclis.KitRun) and `make demo`, each without -race, and
// prints how long each took. Without the variable it says that it skipped
// them and why. With -skip-log FILE it first prints the tests that the
// run before it skipped for want of a newer CLI (testclis.RecordSkip).
//
// Run from the repository's root: `make compat`, or `make test` and
// .ci/run, which set the variable from the shared test CLIs.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

func main() {
	skipLog := flag.String("skip-log", "", "print, then remove, the skips this file recorded")
	flag.Parse()
	if err := run(*skipLog); err != nil {
		fmt.Fprintln(os.Stderr, "compat:", err)
		os.Exit(1)
	}
}

func run(skipLog string) error {
	if skipLog != "" {
		if err := printSkips(skipLog, "the terraform on PATH"); err != nil {
			return err
		}
	}
	paths, err := testclis.Paths(os.Getenv(testclis.Env))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		fmt.Printf("compat: skipped the compatibility suite (acceptance tests, GitOps kit and demo on newer Terraform and OpenTofu): "+
			"%s is unset. .ci/run sets it from ../shared/tools/clis; or set it to the paths of the CLIs, separated by spaces.\n", testclis.Env)
		return nil
	}
	ctx := context.Background()
	var results []result
	failed := false
	for _, path := range paths {
		cli, err := testclis.Detect(ctx, path)
		if err != nil {
			return err
		}
		for _, s := range suites() {
			r := s.run(ctx, cli)
			results = append(results, r)
			failed = failed || r.err != nil
		}
	}
	fmt.Println("\ncompat: CLI, suite, result, time (no -race)")
	for _, r := range results {
		status := "pass"
		if r.err != nil {
			status = "FAIL: " + r.err.Error()
		}
		fmt.Printf("compat:   %-18s %-11s %s %s\n", r.cli, r.suite, status, r.took.Round(time.Second))
	}
	if failed {
		return fmt.Errorf("the compatibility suite failed (output above)")
	}
	return nil
}

// printSkips prints the skips a test run on cli recorded, and removes the
// file.
func printSkips(path, cli string) error {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if line != "" {
			fmt.Printf("compat: skipped on %s: %s\n", cli, line)
		}
	}
	return os.Remove(path)
}

type suite struct {
	name string
	args []string // the command, from the repository's root
	env  func(cli testclis.CLI, work string) ([]string, error)
	// ranOn, if set, is a line the output must hold to show the suite ran
	// cli and not the terraform on PATH.
	ranOn func(cli testclis.CLI) string
}

type result struct {
	cli   testclis.CLI
	suite string
	took  time.Duration
	err   error
}

func suites() []suite {
	goTest := func(name, pattern string) suite {
		return suite{name: name, args: []string{"go", "test", "-count=1", "-timeout=20m", "-run", pattern, "./internal/provider/"},
			env: func(cli testclis.CLI, work string) ([]string, error) {
				// terraform-plugin-testing needs a CLI configuration file that
				// exists; the CLI tests write their own (dev_overrides).
				rc := filepath.Join(work, "cli.tfrc")
				if err := os.WriteFile(rc, nil, 0o600); err != nil {
					return nil, err
				}
				return append([]string{"TF_ACC=1", testclis.SkipLogEnv + "=" + filepath.Join(work, "skips")}, cli.AccEnv(rc)...), nil
			}}
	}
	return []suite{
		goTest("acceptance", testclis.AcceptanceRun),
		goTest("kit", testclis.KitRun),
		{name: "demo", args: []string{"bash", "scripts/demo.sh"},
			env:   demoOnPath,
			ranOn: func(cli testclis.CLI) string { return fmt.Sprintf("\n%s v%s\n", cli.Kind, cli.Version) }},
	}
}

// run runs the suite on cli and prints the last line of its output (all
// of it if it fails), and the tests it skipped for want of a feature.
func (s suite) run(ctx context.Context, cli testclis.CLI) result {
	r := result{cli: cli, suite: s.name}
	fmt.Printf("\n==> compat: %s on %s (%s)\n", s.name, cli, cli.Path)
	work, err := os.MkdirTemp("", "custody-compat-")
	if err != nil {
		r.err = err
		return r
	}
	defer func() { _ = os.RemoveAll(work) }()
	extra, err := s.env(cli, work)
	if err != nil {
		r.err = err
		return r
	}
	cmd := exec.CommandContext(ctx, s.args[0], s.args[1:]...)
	cmd.Env = append(cleanEnv(), append([]string{"CHECKPOINT_DISABLE=1"}, extra...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	r.took = time.Since(start)
	if err != nil {
		// Only a failure's output is worth reading in full.
		_, _ = os.Stdout.Write(out.Bytes())
		r.err = fmt.Errorf("%s: %v", strings.Join(s.args, " "), err)
		return r
	}
	if s.ranOn != nil && !strings.Contains("\n"+out.String(), s.ranOn(cli)) {
		_, _ = os.Stdout.Write(out.Bytes())
		r.err = fmt.Errorf("%s did not run %s: its output has no line %q", strings.Join(s.args, " "), cli, strings.TrimSpace(s.ranOn(cli)))
		return r
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fmt.Printf("%s\n(%s)\n", lines[len(lines)-1], r.took.Round(time.Second))
	r.err = printSkips(filepath.Join(work, "skips"), cli.String())
	return r
}

// cleanEnv is this process's environment without the settings a suite
// sets itself, so that a developer's own cannot leak in.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TF_ACC", "TF_ACC_TERRAFORM_PATH", "TF_ACC_TERRAFORM_VERSION", "TF_ACC_PROVIDER_HOST", "TF_ACC_PROVIDER_NAMESPACE",
			"TF_CLI_CONFIG_FILE", "TERRAFORM", testclis.SkipLogEnv:
			continue
		}
		env = append(env, kv)
	}
	return env
}

// demoOnPath runs the demo as a user with cli first on PATH does: the
// demo takes the first terraform or tofu on PATH (scripts/lib/cli.sh), so
// the terraform further down must not stand in for OpenTofu.
func demoOnPath(cli testclis.CLI, _ string) ([]string, error) {
	return []string{"PATH=" + filepath.Dir(cli.Path) + string(os.PathListSeparator) + os.Getenv("PATH")}, nil
}
