package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Plan-time validators shared by the resources. Each accepts null and
// unknown values (an unknown value is checked once it is known, at apply),
// and explains in its message what is allowed, so that a mistake is caught
// by `terraform plan` instead of by the service halfway through an apply.

// validCIDR accepts an IPv4 or IPv6 CIDR block written canonically:
// no host bits (the service refuses 10.0.0.1/8) and in the form the service
// reads back (lower-case, shortest IPv6), so that the configured text never
// differs from the stored one.
func validCIDR() validator.String {
	return stringCheck{"value must be an IPv4 or IPv6 CIDR block without host bits, such as 10.0.0.0/8 or 2001:db8::/32",
		"Invalid CIDR block", checkCIDRText}
}

// validURL accepts an absolute http or https URL with a host.
func validURL() validator.String {
	return stringCheck{"value must be an absolute URL with the http or https scheme and a host, such as https://example.com/hook",
		"Invalid URL", checkURLText}
}

// validJSONObject accepts text holding exactly one JSON object.
func validJSONObject() validator.String {
	return stringCheck{`value must be a JSON object, such as {"key": "value"} (use jsonencode() to build it)`,
		"Invalid JSON object", checkJSONObjectText}
}

// described gives a validator or plan modifier its Description and
// MarkdownDescription, one plain text for both.
type described string

func (d described) Description(context.Context) string         { return string(d) }
func (d described) MarkdownDescription(context.Context) string { return string(d) }

// stringCheck is a string validator made of a description, the summary of
// its error and check, which returns why a known value is refused, or "".
type stringCheck struct {
	described
	summary string
	check   func(string) string
}

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.check(req.ConfigValue.ValueString()); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, msg)
	}
}

// checkCIDRText returns why s is not a canonical CIDR block, or "".
func checkCIDRText(s string) string {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		if a, aerr := netip.ParseAddr(s); aerr == nil {
			return fmt.Sprintf("%q is an address, not a CIDR block; for this address alone write %s.", s, netip.PrefixFrom(a, a.BitLen()))
		}
		return fmt.Sprintf("%q is not an IPv4 or IPv6 CIDR block; write an address, a slash and a prefix length, "+
			"such as 10.0.0.0/8, 203.0.113.7/32 or 2001:db8::/32.", s)
	}
	if m := p.Masked(); m != p {
		return fmt.Sprintf("%q has host bits set (bits beyond the /%d prefix are not zero), which the service refuses; "+
			"did you mean %s?", s, p.Bits(), m)
	}
	if c := p.String(); c != s {
		return fmt.Sprintf("%q is not written canonically; write it as %s, the form the service stores, "+
			"so that plans do not show a difference.", s, c)
	}
	return ""
}

// checkURLText returns why s is not an absolute http(s) URL, or "".
func checkURLText(s string) string {
	const want = "an absolute URL with the http or https scheme and a host, such as https://example.com/hook"
	if strings.TrimSpace(s) != s || s == "" {
		return fmt.Sprintf("%q must be %s, without surrounding spaces.", s, want)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Sprintf("%q is not a valid URL (%v); it must be %s.", s, err, want)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return fmt.Sprintf("%q has no scheme; it must be %s.", s, want)
		}
		return fmt.Sprintf("%q has the scheme %q; it must be %s.", s, u.Scheme, want)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Sprintf("%q has no host; it must be %s.", s, want)
	}
	return ""
}

// checkJSONObjectText returns why s is not exactly one JSON object, or "".
func checkJSONObjectText(s string) string {
	const hint = ` It must be one JSON object, such as {"key": "value"}; jsonencode() builds one from an HCL map.`
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("The value is not valid JSON: %v.%s", err, hint)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Sprintf("The value is JSON %s, not an object.%s", jsonKind(v), hint)
	}
	// Anything after the object ("{} {}", "{}x") makes it not one object.
	if err := dec.Decode(new(any)); err != io.EOF {
		return "The value has more text after the JSON object." + hint
	}
	return ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	default:
		return "number"
	}
}
