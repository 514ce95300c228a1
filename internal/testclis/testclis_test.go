package testclis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPaths(t *testing.T) {
	got, err := Paths("  /c/terraform-1.15.9/terraform\t/c/tofu-1.12.6/tofu \n")
	if err != nil || !slices.Equal(got, []string{"/c/terraform-1.15.9/terraform", "/c/tofu-1.12.6/tofu"}) {
		t.Errorf("two paths: got %q, %v", got, err)
	}
	if got, err := Paths(" "); err != nil || len(got) != 0 {
		t.Errorf("no paths: got %q, %v", got, err)
	}
	for list, want := range map[string]string{
		"tofu":            "not an absolute path",
		"/a/tofu /a/tofu": "listed twice",
	} {
		if _, err := Paths(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Paths(%q): got %v, want an error saying %q", list, err, want)
		}
	}
}

// The version output tells the kind apart, even after the warning OpenTofu
// prints first when its CLI configuration file is missing; the version
// alone could not (OpenTofu 1.12.6 reports terraform_version 1.12.6).
func TestParseVersionOutput(t *testing.T) {
	for out, want := range map[string]CLI{
		"Terraform v1.15.9\non linux_amd64\n": {Kind: Terraform, Version: Version{1, 15, 9}},
		"Terraform v1.11.4\non linux_amd64\n\nYour version of Terraform is out of date! The latest version\nis 1.15.9.\n": {
			Kind: Terraform, Version: Version{1, 11, 4}},
		"\nWarning: Unable to open CLI configuration file\n\nThe CLI configuration file at \"/root/.terraformrc\" does not exist.\nOpenTofu v1.12.6\non linux_amd64\n": {
			Kind: OpenTofu, Version: Version{1, 12, 6}},
		"OpenTofu v1.13.0-beta1\non linux_amd64\n": {Kind: OpenTofu, Version: Version{1, 13, 0}},
	} {
		kind, v, err := ParseVersionOutput(out)
		if err != nil || kind != want.Kind || v != want.Version {
			t.Errorf("ParseVersionOutput(%q) = %s %s, %v; want %s", out, kind, v, err, want)
		}
	}
	for _, out := range []string{"", "{\"terraform_version\": \"1.12.6\"}", "Terraform v1.x\n", "Terraform version 1.15.9\n"} {
		if _, _, err := ParseVersionOutput(out); err == nil {
			t.Errorf("ParseVersionOutput(%q) should fail", out)
		}
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "tofu")
	script := "#!/bin/sh\n[ \"$1\" = version ] || exit 3\necho 'Warning: Unable to open CLI configuration file'\necho 'OpenTofu v1.12.6'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cli, err := Detect(t.Context(), fake)
	if err != nil || cli != (CLI{Path: fake, Kind: OpenTofu, Version: Version{1, 12, 6}}) {
		t.Errorf("Detect = %+v, %v", cli, err)
	}
	if _, err := Detect(t.Context(), filepath.Join(dir, "missing")); err == nil {
		t.Error("Detect of a missing binary should fail")
	}
}

// A feature is judged by kind and version: OpenTofu 1.12.6 has resource
// identity but no query, whatever its version says.
func TestSupports(t *testing.T) {
	tf := func(v Version) CLI { return CLI{Kind: Terraform, Version: v} }
	tofu := func(v Version) CLI { return CLI{Kind: OpenTofu, Version: v} }
	for _, c := range []struct {
		cli     CLI
		feature Feature
		ok      bool
		why     string
	}{
		{tf(Version{1, 11, 4}), WriteOnly, true, ""},
		{tofu(Version{1, 10, 6}), WriteOnly, false, "needs write-only attributes (Terraform >= 1.11 or OpenTofu >= 1.11); this is OpenTofu 1.10.6"},
		{tf(Version{1, 11, 4}), Identity, false, "needs resource identity (Terraform >= 1.12 or OpenTofu >= 1.12); this is Terraform 1.11.4"},
		{tf(Version{1, 12, 0}), Identity, true, ""},
		{tofu(Version{1, 12, 6}), Identity, true, ""},
		{tf(Version{1, 13, 5}), Query, false, "needs list resources and query (Terraform >= 1.14, not OpenTofu); this is Terraform 1.13.5"},
		{tf(Version{1, 15, 9}), Query, true, ""},
		{tofu(Version{1, 15, 0}), Query, false, "needs list resources and query (Terraform >= 1.14, not OpenTofu); this is OpenTofu 1.15.0"},
	} {
		ok, why := c.cli.Supports(c.feature)
		if ok != c.ok || why != c.why {
			t.Errorf("%s supports %s: got %v %q, want %v %q", c.cli, c.feature.Name, ok, why, c.ok, c.why)
		}
	}
}

func TestAccEnv(t *testing.T) {
	tf := CLI{Path: "/c/terraform", Kind: Terraform, Version: Version{1, 15, 9}}.AccEnv("/w/cli.tfrc")
	if !slices.Equal(tf, []string{"TF_ACC_TERRAFORM_PATH=/c/terraform", "TF_CLI_CONFIG_FILE=/w/cli.tfrc"}) {
		t.Errorf("Terraform: %q", tf)
	}
	tofu := CLI{Path: "/c/tofu", Kind: OpenTofu, Version: Version{1, 12, 6}}.AccEnv("/w/cli.tfrc")
	if !slices.Equal(tofu, []string{"TF_ACC_TERRAFORM_PATH=/c/tofu", "TF_CLI_CONFIG_FILE=/w/cli.tfrc", "TF_ACC_PROVIDER_HOST=registry.opentofu.org"}) {
		t.Errorf("OpenTofu: %q", tofu)
	}
}

func TestRecordSkip(t *testing.T) {
	t.Setenv(SkipLogEnv, "")
	if err := RecordSkip("TestX", "why"); err != nil {
		t.Errorf("without %s: %v", SkipLogEnv, err)
	}
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipLogEnv, log)
	for _, name := range []string{"TestA", "TestB"} {
		if err := RecordSkip(name, "needs query"); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(log); err != nil || string(got) != "TestA: needs query\nTestB: needs query\n" {
		t.Errorf("skip log = %q, %v", got, err)
	}
}
