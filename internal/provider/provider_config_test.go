package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// configure runs the provider's Configure on a provider block whose
// attributes are given as tftypes values (missing ones are null).
func configure(t *testing.T, attrs map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	return configureOn(t, New("test")(), attrs)
}

// configureOn is configure on a given provider instance.
func configureOn(t *testing.T, p provider.Provider, attrs map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, provider.ConfigureRequest{TerraformVersion: "1.11.4",
		Config: tfsdk.Config{Schema: sr.Schema, Raw: providerBlock(t, sr.Schema, attrs)}}, resp)
	return resp
}

// providerBlock is a provider block of schema s holding attrs; the
// attributes not in attrs are null.
func providerBlock(t *testing.T, s schema.Schema, attrs map[string]tftypes.Value) tftypes.Value {
	t.Helper()
	typ, ok := s.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatalf("provider schema type is %T, not an object", s.Type().TerraformType(context.Background()))
	}
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
		if v, ok := attrs[name]; ok {
			vals[name] = v
		}
	}
	return tftypes.NewValue(typ, vals)
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// clearCustodyEnv empties the CUSTODY_* variables but one: Configure's
// unit tests reach no service, so they skip the credentials check, which
// would otherwise go on in the background after the test.
func clearCustodyEnv(t *testing.T) {
	for _, v := range []string{"CUSTODY_BASE_URL", "CUSTODY_ORGANIZATION_ID", "CUSTODY_API_PUBLIC_KEY", "CUSTODY_API_PRIVATE_KEY",
		"CUSTODY_MAX_RETRIES", "CUSTODY_APPROVAL_TIMEOUT", envMaxRequestsPerSecond} {
		t.Setenv(v, "")
	}
	t.Setenv("CUSTODY_SKIP_CREDENTIALS_VALIDATION", "true")
}

func TestConfigureErrorsNameTheAttributeAndVariable(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	other, _ := client.GenerateAPIKey()
	valid := map[string]tftypes.Value{
		"base_url": str("http://127.0.0.1:8443"), "organization_id": str("org"),
		"api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
	}
	with := func(k string, v tftypes.Value) map[string]tftypes.Value {
		m := map[string]tftypes.Value{}
		for a, b := range valid {
			m[a] = b
		}
		if v.IsNull() {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	null := tftypes.NewValue(tftypes.String, nil)
	// Each error names its own variable and no other.
	tests := []struct {
		name  string
		attrs map[string]tftypes.Value
		want  []string
	}{
		{"missing base_url", with("base_url", null), []string{"base_url", "CUSTODY_BASE_URL"}},
		{"missing private key", with("api_private_key", null), []string{"api_private_key", "CUSTODY_API_PRIVATE_KEY"}},
		{"unknown organization", with("organization_id", tftypes.NewValue(tftypes.String, tftypes.UnknownValue)), []string{"unknown organization_id", "CUSTODY_ORGANIZATION_ID"}},
		{"plain http elsewhere", with("base_url", str("http://api.example.com")), []string{"loopback", "CUSTODY_BASE_URL"}},
		{"malformed public key", with("api_public_key", str("04abcd")), []string{"compressed P-256", "CUSTODY_API_PUBLIC_KEY"}},
		{"mismatched pair", with("api_public_key", str(other.PublicKeyHex())), []string{"does not match", "CUSTODY_API_PRIVATE_KEY"}},
		{"bad retries", with("max_retries", tftypes.NewValue(tftypes.Number, 99)), []string{"max_retries", "0 to 20", "CUSTODY_MAX_RETRIES"}},
		// timetypes.GoDuration refuses a literal that is no duration while
		// the block is read, on approval_timeout, before Configure's own
		// check; Terraform refuses it earlier still, at validation (see
		// TestProviderBlockLiteralsCheckedAtValidation).
		{"bad approval timeout", with("approval_timeout", str("soon")), []string{"Invalid Time Duration String Value", "soon"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearCustodyEnv(t)
			resp := configure(t, tt.attrs)
			if !resp.Diagnostics.HasError() {
				t.Fatal("no error")
			}
			text := ""
			for _, d := range resp.Diagnostics.Errors() {
				text += d.Summary() + " " + d.Detail() + "\n"
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("diagnostics %q lack %q", text, w)
				}
			}
			for _, v := range regexp.MustCompile(`CUSTODY_[A-Z_]+`).FindAllString(text, -1) {
				if !slices.Contains(tt.want, v) {
					t.Errorf("diagnostics %q name %s, which is not concerned", text, v)
				}
			}
			if strings.Contains(text, key.PrivateKeyHex()) {
				t.Error("a diagnostic reveals the private key")
			}
		})
	}
	t.Run("valid", func(t *testing.T) {
		clearCustodyEnv(t)
		resp := configure(t, valid)
		if resp.Diagnostics.HasError() {
			t.Fatal(resp.Diagnostics)
		}
		if pd, ok := resp.ResourceData.(*providerData); !ok || pd.client.OrganizationID() != "org" || pd.approvalTimeout != DefaultApprovalTimeout {
			t.Fatalf("resource data = %#v", resp.ResourceData)
		}
	})
}

func TestConfigureFallsBackToEnvironment(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	t.Setenv("CUSTODY_BASE_URL", "http://localhost:1")
	t.Setenv("CUSTODY_ORGANIZATION_ID", "org-env")
	t.Setenv("CUSTODY_API_PUBLIC_KEY", key.PublicKeyHex())
	t.Setenv("CUSTODY_API_PRIVATE_KEY", key.PrivateKeyHex())
	t.Setenv("CUSTODY_MAX_RETRIES", "0")
	t.Setenv("CUSTODY_APPROVAL_TIMEOUT", "90s")
	// Nothing listens at the address: Configure would fail its check.
	t.Setenv("CUSTODY_SKIP_CREDENTIALS_VALIDATION", "true")
	resp := configure(t, nil)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	pd, ok := resp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("ResourceData is %T", resp.ResourceData)
	}
	if pd.client.OrganizationID() != "org-env" || pd.approvalTimeout.String() != "1m30s" {
		t.Fatalf("org %s, approval %s", pd.client.OrganizationID(), pd.approvalTimeout)
	}
	// The provider block wins over the environment.
	resp = configure(t, map[string]tftypes.Value{"organization_id": str("org-block")})
	if pd, ok = resp.ResourceData.(*providerData); !ok {
		t.Fatalf("ResourceData is %T", resp.ResourceData)
	}
	if got := pd.client.OrganizationID(); got != "org-block" {
		t.Fatalf("organization = %s, want the block's", got)
	}
}

// TestAccProviderConfiguredFromEnvironment drives the real CLI with an
// empty provider block: everything comes from CUSTODY_* variables.
func TestAccProviderConfiguredFromEnvironment(t *testing.T) {
	e := newAccEmulator(t)
	t.Setenv("CUSTODY_BASE_URL", e.url)
	t.Setenv("CUSTODY_ORGANIZATION_ID", accOrg)
	t.Setenv("CUSTODY_API_PUBLIC_KEY", e.key.PublicKeyHex())
	t.Setenv("CUSTODY_API_PRIVATE_KEY", e.key.PrivateKeyHex())
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: `
provider "custody" {}

resource "custody_organization_name" "this" {
  name = "Configured From Env"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("custody_organization_name.this", tfjsonpath.New("id"), knownvalue.StringExact(accOrg)),
			},
			Check: func(*terraform.State) error {
				who, err := e.client.Whoami(t.Context(), client.WhoamiRequest{})
				if err != nil || who.OrganizationName != "Configured From Env" {
					return fmt.Errorf("whoami: %+v %v", who, err)
				}
				return nil
			},
		}},
	})
}

func TestConfigureWithoutCredentialsServesOnlyTheKeySet(t *testing.T) {
	clearCustodyEnv(t)
	resp := configure(t, map[string]tftypes.Value{"base_url": str("https://api.example.com")})
	if resp.Diagnostics.HasError() {
		t.Fatalf("a base URL alone must configure the key-set-only mode: %v", resp.Diagnostics)
	}
	var diags diag.Diagnostics
	if keySetFrom(resp.DataSourceData, &diags) == nil || diags.HasError() {
		t.Fatalf("no key set: %v", diags)
	}
	if pd := providerDataFrom(resp.ResourceData, &diags); pd != nil || !diags.HasError() ||
		!strings.Contains(diags.Errors()[0].Detail(), "CUSTODY_API_PRIVATE_KEY") {
		t.Fatalf("a resource without credentials must get an error naming them: %v", diags)
	}
	resp = configure(t, map[string]tftypes.Value{"base_url": str("http://api.example.com")})
	if !resp.Diagnostics.HasError() {
		t.Fatal("plain http to a remote host accepted in key-set-only mode")
	}
}

// TestClientConfigErrorsPointAtTheirAttribute: a value that client.New
// refuses is reported on the attribute it came from, found by the
// client's typed ConfigError rather than by the words of its message.
func TestClientConfigErrorsPointAtTheirAttribute(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	other, _ := client.GenerateAPIKey()
	tests := []struct {
		name, attr string
		value      string
		wantAttr   string
	}{
		{"remote plain http", "base_url", "http://api.example.com", "base_url"},
		{"blank organization", "organization_id", "   ", "organization_id"},
		{"malformed public key", "api_public_key", "04abcd", "api_public_key"},
		{"malformed private key", "api_private_key", "zz", "api_private_key"},
		{"mismatched pair", "api_private_key", other.PrivateKeyHex(), "api_private_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearCustodyEnv(t)
			attrs := map[string]tftypes.Value{
				"base_url": str("http://127.0.0.1:8443"), "organization_id": str("org"),
				"api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
			}
			attrs[tt.attr] = str(tt.value)
			errs := configure(t, attrs).Diagnostics.Errors()
			if len(errs) != 1 {
				t.Fatalf("want one error, got %v", errs)
			}
			d, ok := errs[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(path.Root(tt.wantAttr)) {
				t.Fatalf("error %q is not on %s", errs[0].Detail(), tt.wantAttr)
			}
		})
	}
	t.Run("retries", func(t *testing.T) {
		_, err := client.New(client.Config{BaseURL: "https://api.example.com", OrganizationID: "org",
			APIPublicKey: key.PublicKeyHex(), APIPrivateKey: key.PrivateKeyHex(), Retries: client.RetryUpTo(-1)})
		if got := configErrorAttr(err); got != "max_retries" {
			t.Fatalf("configErrorAttr(%v) = %q, want max_retries", err, got)
		}
	})
	t.Run("an error without a field", func(t *testing.T) {
		if got := configErrorAttr(errors.New("something else")); got != "" {
			t.Fatalf("configErrorAttr = %q, want none", got)
		}
	})
}

// TestConfigureChecksTheVariables: nothing checks CUSTODY_MAX_RETRIES or
// CUSTODY_APPROVAL_TIMEOUT before Configure, which refuses a bad one on
// its attribute with a message naming the variable.
func TestConfigureChecksTheVariables(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	valid := map[string]tftypes.Value{
		"base_url": str("http://127.0.0.1:8443"), "organization_id": str("org"),
		"api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
	}
	tests := []struct{ env, value, attr, want string }{
		{"CUSTODY_MAX_RETRIES", "many", "max_retries", `CUSTODY_MAX_RETRIES) must be a whole number from 0 to 20, got "many"`},
		{"CUSTODY_MAX_RETRIES", "21", "max_retries", `got "21"`},
		{"CUSTODY_MAX_RETRIES", "-1", "max_retries", `got "-1"`},
		{"CUSTODY_APPROVAL_TIMEOUT", "soon", "approval_timeout", `CUSTODY_APPROVAL_TIMEOUT) must be a positive duration such as "30m", got "soon"`},
		{"CUSTODY_APPROVAL_TIMEOUT", "0s", "approval_timeout", `got "0s"`},
		{"CUSTODY_APPROVAL_TIMEOUT", "-5m", "approval_timeout", `got "-5m"`},
	}
	for _, tt := range tests {
		t.Run(tt.env+"="+tt.value, func(t *testing.T) {
			clearCustodyEnv(t)
			t.Setenv(tt.env, tt.value)
			errs := configure(t, valid).Diagnostics.Errors()
			if len(errs) != 1 {
				t.Fatalf("want one error, got %v", errs)
			}
			d, ok := errs[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(path.Root(tt.attr)) || !strings.Contains(d.Detail(), tt.want) {
				t.Fatalf("error %q %q, want one on %s saying %q", errs[0].Summary(), errs[0].Detail(), tt.attr, tt.want)
			}
		})
	}
	t.Run("good values", func(t *testing.T) {
		clearCustodyEnv(t)
		t.Setenv("CUSTODY_MAX_RETRIES", "20")
		t.Setenv("CUSTODY_APPROVAL_TIMEOUT", "1h30m")
		resp := configure(t, valid)
		pd, ok := resp.ResourceData.(*providerData)
		if resp.Diagnostics.HasError() || !ok || pd.approvalTimeout != 90*time.Minute {
			t.Fatalf("diagnostics %v, data %#v", resp.Diagnostics, resp.ResourceData)
		}
	})
}

// TestProviderBlockLiteralsCheckedAtValidation asks the provider, as
// `terraform validate` and `plan` do before Configure, whether a provider
// block is valid: a literal out of range or not a positive duration is
// refused there, on its attribute, by the schema alone.
func TestProviderBlockLiteralsCheckedAtValidation(t *testing.T) {
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	tests := []struct {
		name  string
		attrs map[string]tftypes.Value
		want  string // attribute refused, "" for none
		text  string
	}{
		{"retries above 20", map[string]tftypes.Value{"max_retries": num(21)}, "max_retries", "between 0 and 20"},
		{"negative retries", map[string]tftypes.Value{"max_retries": num(-1)}, "max_retries", "between 0 and 20"},
		{"no retries", map[string]tftypes.Value{"max_retries": num(0)}, "", ""},
		{"20 retries", map[string]tftypes.Value{"max_retries": num(20)}, "", ""},
		{"unknown retries", map[string]tftypes.Value{"max_retries": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)}, "", ""},
		{"not a duration", map[string]tftypes.Value{"approval_timeout": str("soon")}, "approval_timeout", "not a valid Go Time Duration"},
		{"zero duration", map[string]tftypes.Value{"approval_timeout": str("0s")}, "approval_timeout", `positive duration such as "30m", got "0s"`},
		{"negative duration", map[string]tftypes.Value{"approval_timeout": str("-5m")}, "approval_timeout", `got "-5m"`},
		{"a duration", map[string]tftypes.Value{"approval_timeout": str("1h30m")}, "", ""},
		{"unknown duration", map[string]tftypes.Value{"approval_timeout": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}, "", ""},
		{"host without scheme", map[string]tftypes.Value{"base_url": str("api.example.com")},
			"base_url", `base_url "api.example.com" has no scheme: write it as "https://api.example.com" (http:// only for an emulator on a loopback address)`},
		{"host and port without scheme", map[string]tftypes.Value{"base_url": str("api.example.com:443")},
			"base_url", `base_url "api.example.com:443" has no scheme: write it as "https://api.example.com:443"`},
		{"loopback without scheme", map[string]tftypes.Value{"base_url": str("127.0.0.1:8443")},
			"base_url", `base_url "127.0.0.1:8443" has no scheme: write it as "https://127.0.0.1:8443"`},
		{"remote plain http", map[string]tftypes.Value{"base_url": str("http://api.example.com")}, "base_url", "loopback"},
		{"an https base_url", map[string]tftypes.Value{"base_url": str("https://api.example.com")}, "", ""},
		{"the emulator", map[string]tftypes.Value{"base_url": str("http://127.0.0.1:8443")}, "", ""},
		{"unknown base_url", map[string]tftypes.Value{"base_url": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []*tfprotov6.Diagnostic
			for _, d := range validateProviderBlock(t, tt.attrs) {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					errs = append(errs, d)
				}
			}
			if tt.want == "" {
				if len(errs) != 0 {
					t.Fatalf("refused: %s: %s", errs[0].Summary, errs[0].Detail)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one error on %s, got %d: %v", tt.want, len(errs), errs)
			}
			if !errs[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName(tt.want)) || !strings.Contains(errs[0].Detail, tt.text) {
				t.Fatalf("error on %v: %s: %s; want one on %s saying %q", errs[0].Attribute, errs[0].Summary, errs[0].Detail, tt.want, tt.text)
			}
		})
	}
}

// validateProviderBlock sends a provider block through the provider's
// ValidateProviderConfig, served as main.go serves it.
func validateProviderBlock(t *testing.T, attrs map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	t.Helper()
	var sr provider.SchemaResponse
	New("test")().Schema(t.Context(), provider.SchemaRequest{}, &sr)
	block := providerBlock(t, sr.Schema, attrs)
	dv, err := tfprotov6.NewDynamicValue(block.Type(), block)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := NewProtocol6Server("test").ValidateProviderConfig(t.Context(), &tfprotov6.ValidateProviderConfigRequest{Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// CUSTODY_BASE_URL without a scheme is refused at Configure, on base_url,
// with the rule's message and the variable named.
func TestConfigureRefusesBaseURLVariableWithoutScheme(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	clearCustodyEnv(t)
	t.Setenv("CUSTODY_BASE_URL", "api.example.com:443")
	errs := configure(t, map[string]tftypes.Value{
		"organization_id": str("org"), "api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
	}).Diagnostics.Errors()
	if len(errs) != 1 {
		t.Fatalf("want one error, got %v", errs)
	}
	d, ok := errs[0].(diag.DiagnosticWithPath)
	want := `base_url "api.example.com:443" has no scheme: write it as "https://api.example.com:443" (http:// only for an emulator on a loopback address)`
	if !ok || !d.Path().Equal(path.Root("base_url")) || !strings.Contains(d.Detail(), want) || !strings.Contains(d.Detail(), "CUSTODY_BASE_URL") {
		t.Fatalf("error %q %q, want one on base_url saying %q and naming CUSTODY_BASE_URL", errs[0].Summary(), errs[0].Detail(), want)
	}
}
