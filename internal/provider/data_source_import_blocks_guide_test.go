package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// adoptGuide is the guide whose commands TestAccImportBlocks_adoptOrganization
// runs as written.
const adoptGuide = "../../templates/guides/adopting-an-existing-organization.md.tmpl"

// guideFence returns the body of the guide's one fenced block of lang
// that holds each of marks.
func guideFence(t *testing.T, lang string, marks ...string) string {
	t.Helper()
	var found []string
	for _, f := range guideFences(t, lang) {
		if !slices.ContainsFunc(marks, func(m string) bool { return !strings.Contains(f, m) }) {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s has %d ```%s blocks holding %q, want 1", adoptGuide, len(found), lang, marks)
	}
	return found[0]
}

// guideFences returns the bodies of the guide's fenced blocks of lang.
func guideFences(t *testing.T, lang string) []string {
	t.Helper()
	raw, err := os.ReadFile(adoptGuide)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("%s has no ```%s block", adoptGuide, lang)
	}
	return out
}

// corruptPolicy rewrites, in the emulator's state file, the condition of
// the policy named name to expr: a policy made before the plan-time check
// existed, which the service would no longer accept either.
func corruptPolicy(t *testing.T, statePath, name, expr string) {
	t.Helper()
	raw, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]json.RawMessage
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	var pols map[string]map[string]any
	if err := json.Unmarshal(st["policies"], &pols); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range pols {
		if p["policyName"] == name {
			p["condition"], found = expr, true
		}
	}
	if !found {
		t.Fatalf("no policy %q in the state file", name)
	}
	if st["policies"], err = json.Marshal(pols); err != nil {
		t.Fatal(err)
	}
	if raw, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	writeFile(t, statePath, string(raw))
}

// restartAccEmulator starts a second emulator on e's state file, with e's key.
func restartAccEmulator(t *testing.T, e *accEmulator, statePath string) *accEmulator {
	t.Helper()
	srv, err := emulator.New(emulator.Options{OrganizationID: accOrg, OrganizationName: "Acceptance Org", StatePath: statePath,
		RootUsers: []emulator.RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: e.key.PublicKeyHex()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &accEmulator{srv: srv, url: hs.URL, key: e.key, client: accClient(t, hs.URL, e.key)}
}

// orgSnapshot is what the service answers to every list query, and how
// many activities it holds: equal snapshots mean nothing was created,
// updated or deleted in between.
type orgSnapshot struct {
	Policies   *client.ListPoliciesResponse
	Tags       *client.ListPrivateKeyTagsResponse
	Keys       *client.ListPrivateKeysResponse
	Webhooks   *client.ListWebhookEndpointsResponse
	OrgList    *client.GetIPAllowlistResponse
	KeyList    *client.GetIPAllowlistResponse
	Who        *client.WhoamiResponse
	Oauth      *client.GetOauthProvidersResponse
	Activities int
}

func snapshotOrg(t *testing.T, e *accEmulator, statePath string) orgSnapshot {
	t.Helper()
	ctx := context.Background()
	var s orgSnapshot
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	s.Policies, err = e.client.ListPolicies(ctx, client.ListPoliciesRequest{})
	must(err)
	s.Tags, err = e.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
	must(err)
	s.Keys, err = e.client.ListPrivateKeys(ctx, client.ListPrivateKeysRequest{})
	must(err)
	s.Webhooks, err = e.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
	must(err)
	s.OrgList, err = e.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{})
	must(err)
	s.KeyList, err = e.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{PublicKey: e.key.PublicKeyHex()})
	must(err)
	s.Who, err = e.client.Whoami(ctx, client.WhoamiRequest{})
	must(err)
	s.Oauth, err = e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: "user-root"})
	must(err)
	raw, err := os.ReadFile(statePath)
	must(err)
	var st struct {
		ActivityOrder []string `json:"activityOrder"`
	}
	must(json.Unmarshal(raw, &st))
	s.Activities = len(st.ActivityOrder)
	return s
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// guideCommand is the word that starts each of the guide's commands.
var guideCommand = regexp.MustCompile(`(^|&& )terraform `)

// asRunBy is a line of the guide's commands as a user of cli types it:
// the guide says to run `tofu` in place of `terraform` with OpenTofu.
func asRunBy(cli testclis.CLI, line string) string {
	if cli.Kind != testclis.OpenTofu {
		return line
	}
	return guideCommand.ReplaceAllString(line, "${1}tofu ")
}

// runGuideLine runs one line of the guide's commands as a shell would,
// with the harness's CLI first on PATH, answering "yes" to apply's
// question. With OpenTofu the line runs `tofu`, as the guide says, so
// that a terraform elsewhere on PATH cannot stand in for it.
func runGuideLine(t *testing.T, c *tfCLI, line string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "sh", "-c", asRunBy(testCLI(t), line))
	cmd.Dir = c.dir
	env := []string{"PATH=" + filepath.Dir(terraformBinary(t)) + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range c.env {
		// The guide's reader answers apply's question: no TF_INPUT=0.
		if !strings.HasPrefix(kv, "TF_INPUT=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stdin = strings.NewReader("yes\n")
	out, err := cmd.CombinedOutput()
	out = ansiEscape.ReplaceAll(out, nil) // the guide's commands run with colours
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// TestAccImportBlocks_adoptOrganization runs the guide "Adopting an
// existing organization" as written, with the real CLI, on an
// organization made by hand (adoptOrg: 300 policies, one of them refused
// by the plan-time checks, 30 tags, 10 webhook endpoints, 2 OAuth
// providers, ...): every object the data source can find is imported,
// the collections end exclusive (each exclusive resource imported, its
// set listing every object, the refused policy by literal id), the last
// plan is empty and the service is unchanged. A policy made beside the
// configuration afterwards is then planned for removal.
func TestAccImportBlocks_adoptOrganization(t *testing.T) {
	statePath := filepath.Join(t.TempDir(), "emulator.json")
	first := newAccEmulator(t, func(o *emulator.Options) { o.StatePath = statePath })
	adoptOrg(t, first)
	// A policy made before the plan-time check: only the state file can
	// hold it now, since the emulator checks expressions as strictly.
	corruptPolicy(t, statePath, "legacy", "approvers.count() >= 2")
	e := restartAccEmulator(t, first, statePath)
	before := snapshotOrg(t, e, statePath)

	c := newTFCLI(t, e)
	writeFile(t, filepath.Join(c.dir, "main.tf"), guideFence(t, "terraform", `data "custody_import_blocks" "all"`))
	lines := strings.Split(strings.TrimSpace(guideFences(t, "shell")[0]), "\n")
	if len(lines) != 3 {
		t.Fatalf("the guide's commands are %d lines, want 3: %q", len(lines), lines)
	}

	out := runGuideLine(t, c, lines[0])
	if !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Errorf("step 1 changed something:\n%s", out)
	}
	out = runGuideLine(t, c, lines[1])
	const objects = 299 + 30 + 10 + 2 + 1 + 2 // the legacy policy is left out
	if want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", objects); !strings.Contains(out, want) {
		t.Errorf("step 2's plan is not %q:\n%s", want, lastLines(out, 40))
	}
	imports, err := os.ReadFile(filepath.Join(c.dir, "imports.tf"))
	if err != nil {
		t.Fatal(err)
	}
	checkAdoptImports(t, string(imports))
	c.mustRun(0, "validate") // the generated configuration, as written
	out = runGuideLine(t, c, lines[2])
	// Each object, and the four exclusive resources.
	if want := fmt.Sprintf("Apply complete! Resources: %d imported, 0 added, 0 changed, 0 destroyed.", objects+4); !strings.Contains(out, want) {
		t.Errorf("step 3 is not %q:\n%s", want, lastLines(out, 40))
	}
	exclusive := string(mustReadFile(t, filepath.Join(c.dir, "exclusive.tf")))
	legacy := ""
	for _, p := range before.Policies.Policies {
		if p.PolicyName == "legacy" {
			legacy = p.PolicyID
		}
	}
	checkAdoptExclusive(t, exclusive, legacy, before.Oauth.OauthProviders)
	c.mustRun(0, "fmt", "-check", "exclusive.tf")
	c.mustRun(0, "plan", "-detailed-exitcode")

	if after := snapshotOrg(t, e, statePath); !reflect.DeepEqual(before, after) {
		t.Errorf("the service changed:\nbefore %+v\nafter  %+v", before, after)
	}

	// Declared whole: a policy made beside the configuration is drift.
	made, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "made elsewhere", Effect: client.EffectDeny}}})
	if err != nil {
		t.Fatal(err)
	}
	out = c.mustRun(2, "plan", "-detailed-exitcode")
	if !strings.Contains(out, "custody_policies_exclusive.all will be updated in-place") || !strings.Contains(out, made.Result.PolicyIDs[0]) {
		t.Errorf("a policy made beside the configuration is not planned for removal:\n%s", lastLines(out, 40))
	}
}

// checkAdoptExclusive checks exclusive.tf: each collection of adoptOrg
// declared whole, its set referencing each imported object, and the
// legacy policy, which has no import block, kept by its literal id.
func checkAdoptExclusive(t *testing.T, text, legacy string, oauth []client.OauthProvider) {
	t.Helper()
	for typ, want := range map[string]int{"custody_policy": 299, "custody_private_key_tag": 30, "custody_webhook_endpoint": 10,
		"custody_oauth_provider": len(oauth)} {
		if n := len(regexp.MustCompile(`(?m)^    `+typ+`\.\w+\.id,$`).FindAllString(text, -1)); n != want {
			t.Errorf("exclusive.tf references %d %s ids, want %d", n, typ, want)
		}
	}
	for _, want := range []string{
		"import {\n  to = custody_policies_exclusive.all\n  id = \"" + accOrg + "\"\n}\n",
		"resource \"custody_policies_exclusive\" \"all\" {\n  policy_ids = [\n",
		"resource \"custody_private_key_tags_exclusive\" \"all\" {\n  private_key_tag_ids = [\n",
		"resource \"custody_webhook_endpoints_exclusive\" \"all\" {\n  endpoint_ids = [\n",
		"import {\n  to = custody_oauth_providers_exclusive.root\n  id = \"user-root\"\n}\n",
		"resource \"custody_oauth_providers_exclusive\" \"root\" {\n  user_id = \"user-root\"\n  provider_ids = [\n",
		"    # policy \"legacy\" (" + legacy + "): no import block, since the provider's plan-time checks refuse its condition;",
		"\n    \"" + legacy + "\",\n  ]\n}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("exclusive.tf lacks %q", want)
		}
	}
}

// checkAdoptImports checks the rendered file: distinct valid addresses for
// "Signing" and "signing!", a valid one for names in other scripts, and a
// comment instead of a block for the legacy policy.
func checkAdoptImports(t *testing.T, text string) {
	t.Helper()
	tos := regexp.MustCompile(`(?m)^  to = (\S+)$`).FindAllStringSubmatch(text, -1)
	seen := map[string]bool{}
	for _, m := range tos {
		if seen[m[1]] {
			t.Errorf("two blocks import to %s", m[1])
		}
		seen[m[1]] = true
	}
	for _, want := range []string{
		"# policy \"Signing\" (", "# policy \"signing!\" (", "# policy \"Подпись\" (", "# policy \"署名\" (",
		"custody_policy.signing\n", "custody_policy.signing_2\n", "custody_policy.policy\n", "custody_policy.policy_2\n",
		"custody_policy.policy_2fa_required\n", "custody_organization_name.acme_treasury\n", "custody_oauth_provider.google\n",
		"custody_ip_allowlist.organization\n", "custody_ip_allowlist.api_key_", "custody_webhook_endpoint.hook_0\n",
		"custody_private_key_tag.tag_0\n",
		"has no import block: the provider's plan-time checks refuse its condition:\n" +
			"# Invalid policy condition expression: line 1, column 1: approvers is a keyword of the consensus field and cannot be used in condition",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("imports.tf lacks %q", want)
		}
	}
	if seen["custody_policy.legacy"] {
		t.Error("the legacy policy, which the plan-time check refuses, has an import block")
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestGitOpsKit_pointsToAdoptGuide: the kit sends a team with an existing
// organization to the guide first, at a path that exists.
func TestGitOpsKit_pointsToAdoptGuide(t *testing.T) {
	const guide = "docs/guides/adopting-an-existing-organization.md"
	readme := string(mustReadFile(t, filepath.Join(gitopsKit, "README.md")))
	setup := strings.Index(readme, "## Set up the real organization")
	at := strings.Index(readme, guide)
	if setup < 0 || at < setup || strings.Contains(readme[setup:at], "1. ") {
		t.Errorf("the kit's README does not name %s as the first step of setting up the real organization", guide)
	}
	if _, err := os.Stat(filepath.Join("../..", guide)); err != nil {
		t.Error(err)
	}
}

// With OpenTofu each command of a guide line runs `tofu`; with Terraform
// the line is as written.
func TestAsRunBy(t *testing.T) {
	const line = "terraform output -raw import_blocks > imports.tf && terraform plan -generate-config-out=generated.tf"
	tofu := testclis.CLI{Kind: testclis.OpenTofu}
	if got, want := asRunBy(tofu, line), "tofu output -raw import_blocks > imports.tf && tofu plan -generate-config-out=generated.tf"; got != want {
		t.Errorf("with OpenTofu: %q, want %q", got, want)
	}
	if got := asRunBy(testclis.CLI{Kind: testclis.Terraform}, line); got != line {
		t.Errorf("with Terraform: %q, want the line as written", got)
	}
}
