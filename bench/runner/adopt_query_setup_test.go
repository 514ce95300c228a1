package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// fakeDetect knows these CLIs by path, as testclis.Detect would tell them.
func fakeDetect(_ context.Context, path string) (testclis.CLI, error) {
	clis := map[string]testclis.CLI{
		"/clis/tofu-1.15":      {Kind: testclis.OpenTofu, Version: testclis.Version{1, 15, 0}},
		"/clis/terraform-1.12": {Kind: testclis.Terraform, Version: testclis.Version{1, 12, 2}},
		"/clis/terraform-1.15": {Kind: testclis.Terraform, Version: testclis.Version{1, 15, 9}},
		"/usr/bin/terraform":   {Kind: testclis.Terraform, Version: testclis.Version{1, 11, 4}},
		"/new/bin/terraform":   {Kind: testclis.Terraform, Version: testclis.Version{1, 14, 0}},
	}
	c, ok := clis[path]
	if !ok {
		return testclis.CLI{}, errors.New(path + " version: no such file\nmore")
	}
	c.Path = path
	return c, nil
}

// TestChooseQueryCLI: the first CLI of CUSTODY_TEST_CLIS that has query
// by its kind and version (an OpenTofu of a higher version has none),
// else the terraform on PATH if it has; -query-cli overrides both and
// must have query; and when none has, the reason names each CLI.
func TestChooseQueryCLI(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, flag, env, onPath string
		path, from              string   // chosen
		skip                    []string // or why not, in part
		err                     string
	}{
		{name: "the first that has query", env: "/clis/tofu-1.15 /clis/terraform-1.12 /clis/terraform-1.15", onPath: "/new/bin/terraform",
			path: "/clis/terraform-1.15", from: "the first CLI of CUSTODY_TEST_CLIS that has query"},
		{name: "PATH when the list has none", env: "/clis/tofu-1.15", onPath: "/new/bin/terraform", path: "/new/bin/terraform",
			from: "the terraform on PATH, which has query (no CLI of CUSTODY_TEST_CLIS has)"},
		{name: "none", env: "/clis/tofu-1.15 /missing/terraform", onPath: "/usr/bin/terraform", skip: []string{
			"no CLI has terraform query (Terraform >= 1.14, not OpenTofu)",
			"/clis/tofu-1.15 (CUSTODY_TEST_CLIS) is OpenTofu 1.15.0",
			"/missing/terraform (CUSTODY_TEST_CLIS) did not say its version: /missing/terraform version: no such file;",
			"/usr/bin/terraform (the terraform on PATH) is Terraform 1.11.4",
			"name one in CUSTODY_TEST_CLIS or with -query-cli"}},
		{name: "unset", onPath: "/usr/bin/terraform", skip: []string{"CUSTODY_TEST_CLIS names no CLI; /usr/bin/terraform (the terraform on PATH) is Terraform 1.11.4"}},
		{name: "the flag", flag: "/clis/terraform-1.15", env: "/new/bin/terraform", path: "/clis/terraform-1.15", from: "-query-cli"},
		{name: "the flag without query", flag: "/clis/tofu-1.15", env: "/clis/terraform-1.15", err: "-query-cli /clis/tofu-1.15: needs list resources and query"},
		{name: "none asked for", flag: "none", env: "/clis/terraform-1.15", skip: []string{"-query-cli none"}},
		{name: "a bad list", env: "terraform", err: "not an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := chooseQueryCLI(ctx, tc.flag, tc.env, tc.onPath, fakeDetect)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q.cli.Path != tc.path || !strings.Contains(q.from, tc.from) {
				t.Errorf("chose %q from %q, want %q from %q", q.cli.Path, q.from, tc.path, tc.from)
			}
			for _, s := range tc.skip {
				if !strings.Contains(q.skip, s) {
					t.Errorf("the reason %q lacks %q", q.skip, s)
				}
			}
			if (q.skip == "") != (tc.path != "") {
				t.Errorf("chose %q and the reason is %q: one or the other", q.cli.Path, q.skip)
			}
		})
	}
}

// TestGuideListBlocks reads the guide as the runner does: its list blocks
// for all six kinds, each with a limit above the organization's objects
// where it has many, and the import blocks of the four exclusive
// resources; and a guide whose commands differ is refused.
func TestGuideListBlocks(t *testing.T) {
	b, err := os.ReadFile("../../" + adoptGuide)
	if err != nil {
		t.Fatal(err)
	}
	hcl, exclusive, err := guideListBlocks(string(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`list "custody_policy" "policy"`, `list "custody_private_key_tag" "tag"`, `list "custody_webhook_endpoint" "hook"`,
		`list "custody_oauth_provider"`, `list "custody_organization_name"`, `list "custody_ip_allowlist"`} {
		if !strings.Contains(hcl, want) {
			t.Errorf("the list blocks lack %s:\n%s", want, hcl)
		}
	}
	if n := strings.Count(hcl, "limit    = 1000"); n != 3 {
		t.Errorf("%d list blocks with limit = 1000, want the policies', tags' and endpoints':\n%s", n, hcl)
	}
	for _, want := range []string{"custody_policies_exclusive.all", "custody_private_key_tags_exclusive.all",
		"custody_webhook_endpoints_exclusive.all", "custody_oauth_providers_exclusive.sso"} {
		if !strings.Contains(exclusive, "to       = "+want+"\n") {
			t.Errorf("the exclusive import blocks lack %s:\n%s", want, exclusive)
		}
	}
	changed := strings.Replace(string(b), "\nterraform apply\nterraform plan -detailed-exitcode\n", "\nterraform apply -auto-approve\n", 1)
	if _, _, err := guideListBlocks(changed); err == nil || !strings.Contains(err.Error(), "the bench runs") {
		t.Errorf("a guide with other commands: %v", err)
	}
	if _, _, err := guideListBlocks(strings.Replace(string(b), queryGuideSection, "## Querying", 1)); err == nil {
		t.Error("a guide without the section: no error")
	}
}
