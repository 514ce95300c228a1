package provider

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// credentialsConfig is the configuration the docs give for keeping
// credentials out of plan files: the provider block and its ephemeral
// variable as docs/index.md shows them, and the token's variable as
// custody_oauth_provider's example declares it, for an OAuth provider
// whose oidc_token_wo comes from that variable. With ephemeral false, the
// variables lose their `ephemeral = true` and are only sensitive.
func credentialsConfig(t *testing.T, ephemeral bool) string {
	t.Helper()
	section := docsSection(t, "### Keeping credentials out of plan files")
	_, docsHCL, _ := strings.Cut(section, "```terraform\n")
	docsHCL, _, _ = strings.Cut(docsHCL, "```")
	tokenVariable := regexp.MustCompile(`(?s)variable "bob_oidc_token" \{.*?\n\}\n`).
		FindString(string(mustReadFile(t, "../../examples/resources/custody_oauth_provider/resource.tf")))
	if !strings.Contains(docsHCL, "api_private_key = var.custody_api_private_key") || tokenVariable == "" {
		t.Fatalf("the docs' provider block or the example's bob_oidc_token variable is gone; found:\n%s\n%s", docsHCL, tokenVariable)
	}
	config := docsHCL + tokenVariable + `
resource "custody_oauth_provider" "ci" {
  user_id               = "user-root"
  provider_name         = "ci"
  oidc_token_wo         = var.bob_oidc_token
  oidc_token_wo_version = 1
}
`
	if !ephemeral {
		plain := regexp.MustCompile(`(?m)^\s*ephemeral\s*=\s*true.*\n`)
		if n := len(plain.FindAllString(config, -1)); n != 2 {
			t.Fatalf("the documented variables should both say ephemeral = true; %d do:\n%s", n, config)
		}
		config = plain.ReplaceAllString(config, "")
	}
	return config
}

// credentialsCase is a working directory whose terraform gets the API
// private key only through the variable custody_api_private_key (never
// CUSTODY_API_PRIVATE_KEY), and the token through bob_oidc_token.
type credentialsCase struct {
	cli     *tfCLI
	vars    []string          // TF_VAR_ settings for every command
	secrets map[string]string // what must not be saved, by name
}

func newCredentialsCase(t *testing.T, e *accEmulator, ephemeral bool) *credentialsCase {
	t.Helper()
	// Ephemeral input variables came with Terraform 1.10 and OpenTofu 1.11,
	// write-only attributes with Terraform 1.11 and OpenTofu 1.11.
	requireCLI(t, testclis.WriteOnly)
	t.Logf("running %s", testCLI(t))
	cli := newTFCLI(t, e)
	cli.env = slices.DeleteFunc(cli.env, func(kv string) bool { return strings.HasPrefix(kv, "CUSTODY_API_PRIVATE_KEY=") })
	cli.write(credentialsConfig(t, ephemeral))
	token := oauthProviderTestJWT("repo:plan-file", "app-plan-file")
	key := e.key.PrivateKeyHex()
	return &credentialsCase{
		cli:  cli,
		vars: []string{"TF_VAR_custody_api_private_key=" + key, "TF_VAR_bob_oidc_token=" + token},
		secrets: map[string]string{
			"the API private key":         key,
			"the API private key (upper)": strings.ToUpper(key),
			"the OIDC token":              token,
			"the OIDC token's claims":     strings.Split(token, ".")[1],
		},
	}
}

// run runs the CLI with the variables set, and fails unless it exits with
// want.
func (c *credentialsCase) run(want int, args ...string) string {
	c.cli.t.Helper()
	out, code := c.cli.run(c.vars, args...)
	if code != want {
		c.cli.t.Fatalf("%s exited %d, want %d:\n%s", strings.Join(args, " "), code, want, out)
	}
	return out
}

// savedPlan makes a saved plan (plan -out) and returns every form in which
// it can be read: the file's bytes, each file of the archive it is
// (decompressed: the raw bytes alone would hide a secret behind deflate),
// and `show -json` of it.
func (c *credentialsCase) savedPlan(wantExit int) map[string]string {
	t := c.cli.t
	t.Helper()
	c.run(wantExit, "plan", "-out=tfplan", "-detailed-exitcode")
	raw := mustReadFile(t, filepath.Join(c.cli.dir, "tfplan"))
	forms := map[string]string{"the plan file's bytes": string(raw)}
	archive, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("the plan file is not a zip archive: %v", err)
	}
	for _, f := range archive.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(r)
		_ = r.Close()
		if err != nil {
			t.Fatal(err)
		}
		forms["the plan file's "+f.Name] = string(body)
	}
	if _, ok := forms["the plan file's tfplan"]; !ok {
		t.Fatalf("the plan file has no tfplan entry: %v", slices.Collect(maps.Keys(forms)))
	}
	forms["show -json of the saved plan"] = c.run(0, "show", "-json", "tfplan")
	return forms
}

// holding lists, for each secret, the forms that hold it.
func (c *credentialsCase) holding(forms map[string]string) map[string][]string {
	found := map[string][]string{}
	for name, secret := range c.secrets {
		for where, text := range forms {
			if strings.Contains(text, secret) {
				found[name] = append(found[name], where)
			}
		}
		slices.Sort(found[name])
	}
	return found
}

// TestAccEphemeralCredentials_outOfPlanAndState is the way the docs give
// to keep credentials out of plan files: the provider's api_private_key
// from an ephemeral variable and custody_oauth_provider's oidc_token_wo
// from an ephemeral value. Neither the saved plan (its file, what it
// holds, show -json) nor the state holds the key or the token, before
// the apply and after it; the apply of the saved plan works, with the
// variables given again.
func TestAccEphemeralCredentials_outOfPlanAndState(t *testing.T) {
	e := newAccEmulator(t)
	c := newCredentialsCase(t, e, true)

	forms := c.savedPlan(2)
	if !strings.Contains(forms["show -json of the saved plan"], `"custody_oauth_provider"`) {
		t.Fatalf("show -json of the saved plan names no custody_oauth_provider:\n%s", forms["show -json of the saved plan"])
	}
	for name, where := range c.holding(forms) {
		t.Errorf("%s is in %s", name, strings.Join(where, ", "))
	}

	// Ephemeral variables are not saved: the apply of the plan needs them
	// again, and uses them.
	c.run(0, "apply", "tfplan")
	got, err := e.client.GetOauthProviders(context.Background(), client.GetOauthProvidersRequest{UserID: "user-root"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.OauthProviders) != 1 || got.OauthProviders[0].Subject != "repo:plan-file" {
		t.Fatalf("the service holds %+v, want one provider registered from the token (subject repo:plan-file)", got.OauthProviders)
	}
	state := map[string]string{"terraform.tfstate": string(mustReadFile(t, filepath.Join(c.cli.dir, "terraform.tfstate")))}
	if !strings.Contains(state["terraform.tfstate"], `"oidc_token_wo_version": 1`) {
		t.Fatalf("the state holds no custody_oauth_provider with oidc_token_wo_version 1:\n%s", state["terraform.tfstate"])
	}
	state["show -json of the state"] = c.run(0, "show", "-json")
	for name, where := range c.holding(state) {
		t.Errorf("%s is in %s", name, strings.Join(where, ", "))
	}

	// A plan of the applied configuration (refresh included) is empty, and
	// its saved plan, which holds the prior state too, holds neither.
	for name, where := range c.holding(c.savedPlan(0)) {
		t.Errorf("after the apply, %s is in %s", name, strings.Join(where, ", "))
	}
}

// TestAccEphemeralCredentials_plainVariablesInPlan is the control of the
// test above: the same configuration with plain (sensitive, not
// ephemeral) variables puts the key and the token in the saved plan, in
// the forms that test searches, though oidc_token_wo is write-only and
// both are sensitive. Without it, a search that could not find them would
// pass as well.
func TestAccEphemeralCredentials_plainVariablesInPlan(t *testing.T) {
	e := newAccEmulator(t)
	c := newCredentialsCase(t, e, false)
	found := c.holding(c.savedPlan(2))
	t.Logf("with plain variables, the saved plan holds: %v", found)
	for _, name := range []string{"the API private key", "the OIDC token"} {
		if !slices.Contains(found[name], "the plan file's tfplan") || !slices.Contains(found[name], "show -json of the saved plan") {
			t.Errorf("with plain variables %s should be in the plan file's tfplan and in show -json of it; found in %v", name, found[name])
		}
	}
}
