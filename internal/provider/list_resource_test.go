package provider

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// TestAccAllResources_query adopts an organization made by hand with
// terraform query as the adopting guide shows it (its list blocks, its
// exclusive resources' import blocks, its commands): -generate-config-out
// writes a configuration that imports every object, and declares each
// collection whole with every id (the list blocks' limit aside), and then
// plans no change.
func TestAccAllResources_query(t *testing.T) {
	requireCLI(t, testclis.Query)
	e := newAccEmulator(t)
	adoptOrg(t, e)
	c := newTFCLI(t, e)
	c.write("")
	writeFile(t, filepath.Join(c.dir, "adopt.tfquery.hcl"), guideFences(t, "hcl")[0])
	writeFile(t, filepath.Join(c.dir, "exclusive.tf"), guideFence(t, "terraform", "to       = custody_policies_exclusive.all"))
	if cmds := guideFences(t, "sh"); len(cmds) != 1 || cmds[0] != guideQueryCommands {
		t.Fatalf("the guide's terraform query commands are %q; this test runs %q", cmds, guideQueryCommands)
	}
	c.mustRun(0, "query", "-generate-config-out=generated.tf")
	generated := string(mustReadFile(t, filepath.Join(c.dir, "generated.tf")))
	// 300 policies, 30 tags, 10 endpoints, 2 providers, the name, 2 allowlists.
	if n := strings.Count(generated, "\nimport {"); n != 345 {
		t.Errorf("generated %d import blocks, want 345", n)
	}
	out := c.mustRun(0, "plan", "-generate-config-out=generated_exclusive.tf")
	if !strings.Contains(out, "Plan: 349 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Errorf("plan: %s", out[max(0, len(out)-2000):])
	}
	checkQueryExclusive(t, string(mustReadFile(t, filepath.Join(c.dir, "generated_exclusive.tf"))))
	out = c.mustRun(0, "apply", "-auto-approve")
	if !regexp.MustCompile(`349 imported, 0 added, 0 changed, 0 destroyed`).MatchString(out) {
		t.Errorf("apply: %s", out[max(0, len(out)-2000):])
	}
	c.mustRun(0, "plan", "-detailed-exitcode") // no change
	if p, _ := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{}); len(p.Policies) != 300 {
		t.Errorf("%d policies after the adoption, want 300", len(p.Policies))
	}

	// A list block keeps its limit, in name order (bytes): the three
	// first of the 300, and not the fourth.
	writeFile(t, filepath.Join(c.dir, "adopt.tfquery.hcl"), `
list "custody_policy" "first" {
  provider = custody
  limit    = 3
}
`)
	out = c.mustRun(0, "query")
	want := []string{"2fa required", "Signing", "legacy"}
	if got := listedNames(out, "list.custody_policy.first"); !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q:\n%s", got, want, out)
	}
}

// checkQueryExclusive checks the generated exclusive resources: each set
// lists every id of its collection, as a literal.
func checkQueryExclusive(t *testing.T, text string) {
	t.Helper()
	for _, c := range []struct {
		to, attr string
		n        int
	}{
		{"custody_policies_exclusive\" \"all", "policy_ids", 300},
		{"custody_private_key_tags_exclusive\" \"all", "private_key_tag_ids", 30},
		{"custody_webhook_endpoints_exclusive\" \"all", "endpoint_ids", 10},
		{"custody_oauth_providers_exclusive\" \"sso", "provider_ids", 2},
	} {
		m := regexp.MustCompile(`resource "` + regexp.QuoteMeta(c.to) + `" \{[^}]*?\n  ` + c.attr + ` +=\s*\[([^\]]*)\]`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("no %s with %s in the generated configuration:\n%s", c.to, c.attr, text)
			continue
		}
		if n := strings.Count(m[1], `"`) / 2; n != c.n {
			t.Errorf("%s lists %d ids, want %d", c.attr, n, c.n)
		}
	}
}

// guideQueryCommands are the commands the guide runs, and this test.
const guideQueryCommands = `terraform query -generate-config-out=generated.tf
terraform plan -generate-config-out=generated_exclusive.tf
terraform apply
terraform plan -detailed-exitcode
`

// listedNames are the display names terraform query shows for a list
// block, in order.
func listedNames(out, block string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, block); ok {
			fields := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(rest), -1)
			names = append(names, fields[len(fields)-1])
		}
	}
	return names
}

// The served provider answers list requests: the wrapper that releases
// request contexts must not hide them.
func TestServedProviderListsResources(t *testing.T) {
	if _, ok := NewProtocol6Server("test").(tfprotov6.ListResourceServer); !ok {
		t.Fatal("the served provider does not implement the list resource RPCs")
	}
}
