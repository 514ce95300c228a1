package provider

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// validatorCase is one value and the fragment its error must contain ("" =
// accepted).
type validatorCase struct {
	value   types.String
	wantErr string
}

func runStringValidatorCases(t *testing.T, v validator.String, cases map[string]validatorCase) {
	t.Helper()
	// Every validator leaves a null or unknown value alone: Terraform
	// checks it again once it is known.
	cases = maps.Clone(cases)
	cases["null"] = validatorCase{value: types.StringNull()}
	cases["unknown"] = validatorCase{value: types.StringUnknown()}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := &validator.StringResponse{}
			v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("attr"), ConfigValue: tc.value}, resp)
			if tc.wantErr == "" {
				if resp.Diagnostics.HasError() {
					t.Fatalf("want accepted, got %v", resp.Diagnostics)
				}
				return
			}
			if !resp.Diagnostics.HasError() {
				t.Fatalf("want an error containing %q, got none", tc.wantErr)
			}
			d := resp.Diagnostics.Errors()[0]
			if !strings.Contains(d.Detail(), tc.wantErr) {
				t.Fatalf("error %q does not contain %q", d.Detail(), tc.wantErr)
			}
		})
	}
	if v.Description(context.Background()) == "" || v.MarkdownDescription(context.Background()) == "" {
		t.Error("the validator must describe itself (the docs show it)")
	}
}

func TestValidCIDR(t *testing.T) {
	runStringValidatorCases(t, validCIDR(), map[string]validatorCase{
		"ipv4":           {value: types.StringValue("10.0.0.0/8")},
		"ipv4 host":      {value: types.StringValue("203.0.113.7/32")},
		"ipv4 all":       {value: types.StringValue("0.0.0.0/0")},
		"loopback v4":    {value: types.StringValue("127.0.0.0/8")},
		"ipv6":           {value: types.StringValue("2001:db8::/32")},
		"loopback v6":    {value: types.StringValue("::1/128")},
		"host bits v4":   {value: types.StringValue("10.0.0.1/8"), wantErr: "did you mean 10.0.0.0/8"},
		"host bits v6":   {value: types.StringValue("2001:db8::1/32"), wantErr: "did you mean 2001:db8::/32"},
		"bare address":   {value: types.StringValue("10.1.2.3"), wantErr: "write 10.1.2.3/32"},
		"bare v6":        {value: types.StringValue("::1"), wantErr: "write ::1/128"},
		"garbage":        {value: types.StringValue("not-a-cidr"), wantErr: "is not an IPv4 or IPv6 CIDR block"},
		"empty":          {value: types.StringValue(""), wantErr: "is not an IPv4 or IPv6 CIDR block"},
		"prefix too big": {value: types.StringValue("10.0.0.0/33"), wantErr: "is not an IPv4 or IPv6 CIDR block"},
		"upper-case v6":  {value: types.StringValue("2001:DB8::/32"), wantErr: "write it as 2001:db8::/32"},
		"long v6":        {value: types.StringValue("2001:0db8:0000::/48"), wantErr: "write it as 2001:db8::/48"},
	})
}

func TestValidURL(t *testing.T) {
	runStringValidatorCases(t, validURL(), map[string]validatorCase{
		"https":       {value: types.StringValue("https://example.com/hook")},
		"http port":   {value: types.StringValue("http://127.0.0.1:8080/x?y=1")},
		"ipv6 host":   {value: types.StringValue("https://[::1]:8443/")},
		"ftp":         {value: types.StringValue("ftp://example.com/"), wantErr: `the scheme "ftp"`},
		"no scheme":   {value: types.StringValue("example.com/hook"), wantErr: "has no scheme"},
		"no host":     {value: types.StringValue("https:///path"), wantErr: "has no host"},
		"port only":   {value: types.StringValue("https://:443/"), wantErr: "has no host"},
		"opaque":      {value: types.StringValue("https:example.com"), wantErr: "has no host"},
		"spaces":      {value: types.StringValue(" https://example.com"), wantErr: "without surrounding spaces"},
		"empty":       {value: types.StringValue(""), wantErr: "must be an absolute URL"},
		"bad escape":  {value: types.StringValue("https://example.com/%zz"), wantErr: "is not a valid URL"},
		"mailto":      {value: types.StringValue("mailto:a@example.com"), wantErr: `the scheme "mailto"`},
		"relative":    {value: types.StringValue("/hook"), wantErr: "has no scheme"},
		"javascript":  {value: types.StringValue("javascript:alert(1)"), wantErr: `the scheme "javascript"`},
		"upper https": {value: types.StringValue("HTTPS://example.com/")}, // url.Parse lower-cases the scheme
	})
}

func TestValidJSONObject(t *testing.T) {
	runStringValidatorCases(t, validJSONObject(), map[string]validatorCase{
		"object":        {value: types.StringValue(`{"a": 1, "b": {"c": [true, null]}}`)},
		"empty object":  {value: types.StringValue(`{}`)},
		"spaces":        {value: types.StringValue(" {\n} \n")},
		"array":         {value: types.StringValue(`[1, 2]`), wantErr: "JSON array, not an object"},
		"string":        {value: types.StringValue(`"x"`), wantErr: "JSON string, not an object"},
		"number":        {value: types.StringValue(`12`), wantErr: "JSON number, not an object"},
		"json null":     {value: types.StringValue(`null`), wantErr: "JSON null, not an object"},
		"bool":          {value: types.StringValue(`true`), wantErr: "JSON boolean, not an object"},
		"invalid":       {value: types.StringValue(`{"a":}`), wantErr: "not valid JSON"},
		"empty":         {value: types.StringValue(``), wantErr: "not valid JSON"},
		"two objects":   {value: types.StringValue(`{} {}`), wantErr: "more text after the JSON object"},
		"trailing junk": {value: types.StringValue(`{"a": 1}x`), wantErr: "more text after the JSON object"},
	})
}

// A set element is named by the attribute that identifies it, not by the
// framework's dump of the whole element.
func TestDescribePath(t *testing.T) {
	sub := types.ObjectValueMust(map[string]attr.Type{"event_type": types.StringType, "filters_json": types.StringType},
		map[string]attr.Value{"event_type": types.StringValue("EVERYTHING"), "filters_json": types.StringNull()})
	for p, want := range map[string]path.Path{
		`subscriptions[event_type = "EVERYTHING"].event_type`: path.Root("subscriptions").AtSetValue(sub).AtName("event_type"),
		`rules[...].label`:     path.Root("rules").AtSetValue(types.StringValue("x")).AtName("label"),
		`private_key_ids[...]`: path.Root("private_key_ids").AtSetValue(types.StringValue("")),
		`a.b[2]["k"]`:          path.Root("a").AtName("b").AtListIndex(2).AtMapKey("k"),
	} {
		if got := describePath(want); got != p {
			t.Errorf("describePath = %s, want %s", got, p)
		}
	}
}

// oneOf suggests the value meant by policylang.Closest's rule (issue 33):
// a prefix of an event type suggests that type.
func TestOneOfSuggests(t *testing.T) {
	runStringValidatorCases(t, oneOf(webhookEventTypes...), map[string]validatorCase{
		"valid":         {value: types.StringValue("BALANCE_FINALIZED_UPDATES")},
		"prefix":        {value: types.StringValue("BALANCE_FIN"), wantErr: `got "BALANCE_FIN". Did you mean "BALANCE_FINALIZED_UPDATES"?`},
		"shared prefix": {value: types.StringValue("SEND_TRANSACTION_UPDATES"), wantErr: `Did you mean "SEND_TRANSACTION_STATUS_UPDATES"?`},
		"typo":          {value: types.StringValue("ACTIVITY_UPDATE"), wantErr: `Did you mean "ACTIVITY_UPDATES"?`},
	})
	runStringValidatorCases(t, oneOf("EFFECT_ALLOW", "EFFECT_DENY"), map[string]validatorCase{
		"nothing alike": {value: types.StringValue("MAYBE"), wantErr: `got "MAYBE".`},
	})
}
