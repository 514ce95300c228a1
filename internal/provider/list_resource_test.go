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

// adoptQuery lists every kind of object the provider manages, each block's
// limit above the organization's count.
const adoptQuery = `
list "custody_policy" "policy" {
  provider = custody
  limit    = 1000
}
list "custody_private_key_tag" "tag" {
  provider = custody
  limit    = 1000
}
list "custody_webhook_endpoint" "hook" {
  provider = custody
  limit    = 1000
}
list "custody_oauth_provider" "sso" {
  provider = custody
}
list "custody_organization_name" "org" {
  provider = custody
}
list "custody_ip_allowlist" "allowlist" {
  provider = custody
}
`

// TestAccAllResources_query adopts an organization made by hand with
// terraform query: -generate-config-out writes a configuration that
// imports every object and then plans no change.
func TestAccAllResources_query(t *testing.T) {
	requireCLI(t, testclis.Query)
	e := newAccEmulator(t)
	adoptOrg(t, e)
	c := newTFCLI(t, e)
	c.write("")
	writeFile(t, filepath.Join(c.dir, "adopt.tfquery.hcl"), adoptQuery)
	out := c.mustRun(0, "query", "-generate-config-out=generated.tf")
	generated := string(mustReadFile(t, filepath.Join(c.dir, "generated.tf")))
	// 300 policies, 30 tags, 10 endpoints, 2 providers, the name, 2 allowlists.
	if n := strings.Count(generated, "\nimport {"); n != 345 {
		t.Errorf("generated %d import blocks, want 345", n)
	}
	out = c.mustRun(0, "apply", "-auto-approve")
	if !regexp.MustCompile(`345 imported, 0 added, 0 changed, 0 destroyed`).MatchString(out) {
		t.Errorf("apply: %s", out[max(0, len(out)-2000):])
	}
	c.mustRun(0, "plan", "-detailed-exitcode")
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
	if _, ok := NewProtocol6Server("test").(tfprotov6.ProviderServerWithListResource); !ok {
		t.Fatal("the served provider does not implement the list resource RPCs")
	}
}
