package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// What Terraform refuses in a provider block before Configure runs: the
// schema's own checks of literal values, at `terraform validate`.

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
