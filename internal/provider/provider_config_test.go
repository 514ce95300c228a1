package provider

import (
	"context"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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

// validProviderBlock is a complete provider block for an emulator on a
// loopback address, signing with key.
func validProviderBlock(key *client.APIKey) map[string]tftypes.Value {
	return map[string]tftypes.Value{
		"base_url": str("http://127.0.0.1:8443"), "organization_id": str("org"),
		"api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
	}
}

// oneErrorOn fails the test unless errs is one error, on attribute attr,
// whose detail holds every one of want.
func oneErrorOn(t *testing.T, errs diag.Diagnostics, attr string, want ...string) {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("want one error, got %v", errs)
	}
	d, ok := errs[0].(diag.DiagnosticWithPath)
	if !ok || !d.Path().Equal(path.Root(attr)) {
		t.Fatalf("error %q %q is not on %s", errs[0].Summary(), errs[0].Detail(), attr)
	}
	for _, w := range want {
		if !strings.Contains(d.Detail(), w) {
			t.Fatalf("error on %s %q %q, want it to say %q", attr, errs[0].Summary(), errs[0].Detail(), w)
		}
	}
}

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
	valid := validProviderBlock(key)
	with := func(k string, v tftypes.Value) map[string]tftypes.Value {
		m := maps.Clone(valid)
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
			attrs := validProviderBlock(key)
			attrs[tt.attr] = str(tt.value)
			oneErrorOn(t, configure(t, attrs).Diagnostics.Errors(), tt.wantAttr)
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
