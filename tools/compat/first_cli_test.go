package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// firstCLI runs scripts/lib/cli.sh's first_cli_on_path with path as PATH.
func firstCLI(t *testing.T, path string) (string, error) {
	t.Helper()
	lib, err := filepath.Abs("../../scripts/lib/cli.sh")
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", `source "$1" && first_cli_on_path`, "bash", lib)
	cmd.Env = []string{"PATH=" + path}
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// fakeCLIs makes a directory holding an executable of each name.
func fakeCLIs(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The demo runs the CLI first on PATH, whichever kind it is: OpenTofu put
// first is not passed over for a terraform further down.
func TestFirstCLIOnPathFollowsPathOrder(t *testing.T) {
	tofu, terraform, both, neither := fakeCLIs(t, "tofu"), fakeCLIs(t, "terraform"), fakeCLIs(t, "tofu", "terraform"), fakeCLIs(t, "go")
	notExecutable := t.TempDir()
	if err := os.WriteFile(filepath.Join(notExecutable, "terraform"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{neither, tofu, terraform}, filepath.Join(tofu, "tofu")},
		{[]string{terraform, tofu}, filepath.Join(terraform, "terraform")},
		{[]string{both}, filepath.Join(both, "terraform")},
		{[]string{notExecutable, tofu}, filepath.Join(tofu, "tofu")},
	} {
		got, err := firstCLI(t, strings.Join(c.path, ":"))
		if err != nil || got != c.want {
			t.Errorf("PATH=%v: %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	if got, err := firstCLI(t, neither); err == nil {
		t.Errorf("with neither CLI on PATH it printed %q and succeeded; want a failure", got)
	}
}
