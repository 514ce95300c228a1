package provider

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/jsonseeds"
)

// Fuzz targets of the provider's plan-time checks. Their seed corpora run in every plain `go test`; scripts/fuzz.sh runs each
// target for a bounded time.

// FuzzCheckCIDRText asserts: no panic; an accepted text is a prefix that
// net/netip parses, without host bits, written exactly as netip writes it
// (the canonical form the service stores, so lower-case and without a
// zone); a refusal quotes the text, and the fix it suggests is accepted.
func FuzzCheckCIDRText(f *testing.F) {
	for _, s := range []string{
		"10.0.0.0/8", "203.0.113.7/32", "0.0.0.0/0", "2001:db8::/32", "::/0", "::1/128", "::ffff:10.0.0.0/104",
		"10.0.0.1/8", "2001:db8::1/32", "2001:DB8::/32", "2001:0db8::/32", "2001:db8:0:0:0:0:0:0/32",
		"10.0.0.0/08", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "/8", "10.0.0.0", "2001:db8::1", "fe80::1%eth0",
		"fe80::%eth0/64", "::ffff:1.2.3.4", "010.0.0.0/8", " 10.0.0.0/8", "10.0.0.0/8 ", "10.0.0.0/8\n",
		"1.2.3.4/32/32", "", "x", "10.0.0.0\\8", "１０.0.0.0/8", "::ffff:0:0/96", "1.2.3.4.5/32",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msg := checkCIDRText(s)
		if msg == "" {
			p, err := netip.ParsePrefix(s)
			switch {
			case err != nil:
				t.Fatalf("accepted %q, which netip does not parse: %v", s, err)
			case p.Masked() != p:
				t.Fatalf("accepted %q, which has host bits set", s)
			case p.String() != s:
				t.Fatalf("accepted %q, which netip writes as %q", s, p.String())
			case p.Addr().Zone() != "" || strings.ToLower(s) != s || strings.TrimSpace(s) != s:
				t.Fatalf("accepted %q, which is not canonical", s)
			}
			if q, err := netip.ParsePrefix(p.String()); err != nil || q != p {
				t.Fatalf("accepted %q, which does not round-trip: %v, %v", s, q, err)
			}
			return
		}
		if !strings.Contains(msg, fmt.Sprintf("%q", s)) {
			t.Fatalf("the refusal of %q does not quote it: %s", s, msg)
		}
		// What the message suggests must itself be accepted.
		var fix string
		if p, err := netip.ParsePrefix(s); err == nil {
			fix = p.Masked().String()
		} else if a, err := netip.ParseAddr(s); err == nil {
			fix = netip.PrefixFrom(a, a.BitLen()).String()
		}
		if fix != "" {
			if !strings.Contains(msg, fix) {
				t.Fatalf("the refusal of %q does not suggest %q: %s", s, fix, msg)
			}
			if again := checkCIDRText(fix); again != "" {
				t.Fatalf("the refusal of %q suggests %q, which is refused too: %s", s, fix, again)
			}
		}
	})
}

// isOneJSONObject is the test's own rule: valid JSON whose value is an
// object.
func isOneJSONObject(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return json.Valid([]byte(s)) && strings.HasPrefix(t, "{")
}

// FuzzJSONObjectText asserts: no panic; checkJSONObjectText accepts
// exactly the texts that are one JSON object, and explains every refusal.
func FuzzJSONObjectText(f *testing.F) {
	for _, s := range jsonseeds.Texts() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msg := checkJSONObjectText(s)
		if want := isOneJSONObject(s); (msg == "") != want {
			t.Fatalf("checkJSONObjectText(%q) = %q; one JSON object: %v", s, msg, want)
		}
		if msg != "" && !strings.Contains(msg, "JSON") {
			t.Fatalf("checkJSONObjectText(%q): unclear refusal %q", s, msg)
		}
	})
}
