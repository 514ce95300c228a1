package emulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

// twoRoots is an emulator with a second root user, user-2, owning k2.
func twoRoots(t *testing.T, mutate ...func(*Options)) (*testEmulator, *client.APIKey, *client.Client) {
	t.Helper()
	k2 := clienttest.NewAPIKey(t)
	e := newTestEmulator(t, append(mutate, func(o *Options) {
		o.RootUsers = append(o.RootUsers, RootUser{UserID: "user-2", APIPublicKey: k2.PublicKeyHex()})
	})...)
	return e, k2, clientFor(t, e.http.URL, k2)
}

func setAllowlist(t *testing.T, c *client.Client, p client.SetIPAllowlistParams) *client.Submitted[client.EmptyResult] {
	t.Helper()
	got, err := c.SetIPAllowlist(t.Context(), p)
	if err != nil {
		t.Fatalf("set_ip_allowlist: %v", err)
	}
	return got
}

func getAllowlist(t *testing.T, c *client.Client, publicKey string) client.IPAllowlist {
	t.Helper()
	got, err := c.GetIPAllowlist(t.Context(), client.GetIPAllowlistRequest{PublicKey: publicKey})
	if err != nil {
		t.Fatalf("get_ip_allowlist: %v", err)
	}
	return got.Allowlist
}

func boolRef(v bool) *bool { return &v }

func TestIPAllowlistSetReplaceGetRemove(t *testing.T) {
	clock := testclock.New(time.Now())
	e := newTestEmulator(t, withClock(clock))
	t0 := strconv.FormatInt(clock.Now().UnixMilli(), 10) // as the reference describes createdAt
	first := client.SetIPAllowlistParams{Rules: []client.IPAllowlistRuleParams{{CIDR: "10.0.0.0/8", Label: "office"}, {CIDR: "2001:db8::/32", Label: "v6"}}}
	set := setAllowlist(t, e.client, first)
	sent, _ := json.Marshal(first)
	if got := string(set.Activity.Intent["setIpAllowlistIntent"]); got != string(sent) || string(set.Activity.Result["setIpAllowlistResult"]) != "{}" {
		t.Fatalf("intent %s (sent %s), result %s", got, sent, set.Activity.Result["setIpAllowlistResult"])
	}
	got := getAllowlist(t, e.client, "")
	if got.OrganizationID != testOrg || got.PublicKey != "" || got.Enabled == nil || *got.Enabled || got.OnEvaluationError != client.OnEvaluationErrorDeny ||
		len(got.Rules) != 2 || got.Rules[0] != (client.IPAllowlistRule{CIDR: "10.0.0.0/8", Label: "office", CreatedAt: t0}) {
		t.Fatalf("org-level allowlist: %+v", got)
	}

	clock.Advance(time.Second)
	t1 := strconv.FormatInt(clock.Now().UnixMilli(), 10)
	setAllowlist(t, e.client, client.SetIPAllowlistParams{Enabled: boolRef(true), OnEvaluationError: client.OnEvaluationErrorAllow,
		Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32", Label: "local"}, {CIDR: "10.0.0.0/8", Label: "office"}, {CIDR: "2001:db8::/32", Label: "v6 renamed"}}})
	got = getAllowlist(t, e.client, "")
	want := []client.IPAllowlistRule{{CIDR: "127.0.0.1/32", Label: "local", CreatedAt: t1}, {CIDR: "10.0.0.0/8", Label: "office", CreatedAt: t0},
		{CIDR: "2001:db8::/32", Label: "v6 renamed", CreatedAt: t1}}
	if !*got.Enabled || got.OnEvaluationError != client.OnEvaluationErrorAllow || len(got.Rules) != len(want) {
		t.Fatalf("replaced allowlist: %+v", got)
	}
	for i := range want {
		if got.Rules[i] != want[i] {
			t.Fatalf("rule %d = %+v, want %+v (replaced, an unchanged rule keeps its createdAt)", i, got.Rules[i], want[i])
		}
	}

	if _, err := e.client.RemoveIPAllowlist(t.Context(), client.RemoveIPAllowlistParams{}); err != nil {
		t.Fatal(err)
	}
	_, err := e.client.GetIPAllowlist(t.Context(), client.GetIPAllowlistRequest{})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "no IP allowlist is set for organization "+testOrg) {
		t.Fatalf("get after remove: %v", err)
	}
	_, err = e.client.RemoveIPAllowlist(t.Context(), client.RemoveIPAllowlistParams{})
	wantFailedActivity(t, err, client.CodeNotFound, "no IP allowlist is set for organization "+testOrg)
}

func TestIPAllowlistKeyLevel(t *testing.T) {
	e, k2, _ := twoRoots(t)
	pub2 := k2.PublicKeyHex()
	// Sent in upper case, stored (and matched by the stamp verifier) in lower case.
	setAllowlist(t, e.client, client.SetIPAllowlistParams{PublicKey: strings.ToUpper(pub2), Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32"}}})
	got := getAllowlist(t, e.client, pub2)
	if got.PublicKey != pub2 || got.Enabled != nil || got.OnEvaluationError != client.OnEvaluationErrorDeny || len(got.Rules) != 1 || got.Rules[0].CIDR != "127.0.0.1/32" {
		t.Fatalf("key-level allowlist: %+v", got)
	}
	for _, key := range []string{"", e.key.PublicKeyHex()} { // neither the organization nor another key has one
		if _, err := e.client.GetIPAllowlist(t.Context(), client.GetIPAllowlistRequest{PublicKey: key}); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("get %q: %v", key, err)
		}
	}
	stranger, _ := client.GenerateAPIKey()
	_, err := e.client.SetIPAllowlist(t.Context(), client.SetIPAllowlistParams{PublicKey: stranger.PublicKeyHex(), Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32"}}})
	wantFailedActivity(t, err, client.CodeNotFound, "API key "+stranger.PublicKeyHex()+" belongs to no user")
	if _, err := e.client.RemoveIPAllowlist(t.Context(), client.RemoveIPAllowlistParams{PublicKey: pub2}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.GetIPAllowlist(t.Context(), client.GetIPAllowlistRequest{PublicKey: pub2}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get after remove: %v", err)
	}
}

func TestIPAllowlistValidation(t *testing.T) {
	e := newTestEmulator(t)
	const typ = "ACTIVITY_TYPE_SET_IP_ALLOWLIST"
	pub := e.key.PublicKeyHex()
	for _, tc := range []struct{ name, params, want string }{
		{"missing cidr", `{"rules":[{"cidr":"10.0.0.0/8"},{"label":"x"}]}`, "missing required field parameters.rules[1].cidr"},
		{"prefix too long", `{"rules":[{"cidr":"10.0.0.0/33"}]}`, `field parameters.rules[0].cidr: "10.0.0.0/33" is not an IPv4 or IPv6 CIDR block`},
		{"not an address", `{"rules":[{"cidr":"banana"}]}`, `"banana" is not an IPv4 or IPv6 CIDR block`},
		{"empty cidr", `{"rules":[{"cidr":""}]}`, "missing required field parameters.rules[0].cidr"},
		{"host bits", `{"rules":[{"cidr":"10.0.0.1/8"}]}`, "field parameters.rules[0].cidr: 10.0.0.1/8 has host bits set; did you mean 10.0.0.0/8"},
		{"v6 host bits", `{"rules":[{"cidr":"2001:db8::1/32"}]}`, "did you mean 2001:db8::/32"},
		{"bare address", `{"rules":[{"cidr":"10.1.2.3"}]}`, "is an address, not a CIDR block; did you mean 10.1.2.3/32"},
		{"enabled with publicKey", `{"publicKey":"` + pub + `","enabled":false,"rules":[]}`,
			"enabled is meaningful only for organization-level allowlists; omit it for a key-level one"},
		{"bad onEvaluationError", `{"onEvaluationError":"MAYBE"}`, `field parameters.onEvaluationError: unknown value "MAYBE"`},
		{"malformed publicKey", `{"publicKey":"abc"}`, "field parameters.publicKey: API public key \"abc\" must be a compressed P-256 point"},
		{"unknown field", `{"rule":[]}`, `unknown field "rule"`},
		{"wrong type", `{"enabled":"yes"}`, "wrong JSON type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/set_ip_allowlist", submitBody(typ, tc.params), e.key), http.StatusBadRequest, tc.want)
		})
	}
	wantError(t, e.post(t, "/public/v1/submit/remove_ip_allowlist", submitBody("ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", `{"publicKey":"02zz"}`), e.key),
		http.StatusBadRequest, "field parameters.publicKey")
	wantError(t, e.post(t, "/public/v1/query/get_ip_allowlist", []byte(`{"organizationId":"`+testOrg+`","publicKey":"02zz"}`), e.key),
		http.StatusBadRequest, "field publicKey")
	// All parameters are optional: an empty object sets an empty, disabled organization-level allowlist.
	if a := e.post(t, "/public/v1/submit/set_ip_allowlist", submitBody(typ, `{}`), e.key); a.Status != http.StatusOK {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
	if got := getAllowlist(t, e.client, ""); got.Enabled == nil || *got.Enabled || len(got.Rules) != 0 || got.Rules == nil {
		t.Fatalf("%+v", got)
	}
}

func wantForbidden(t *testing.T, err error, want string) {
	t.Helper()
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusForbidden || !strings.Contains(apiErr.Message, want) {
		t.Fatalf("err = %v, want HTTP 403 containing %q", err, want)
	}
}

func TestIPAllowlistOrganizationEnforcement(t *testing.T) {
	for _, tc := range []struct {
		name    string
		enabled bool
		cidr    string
		denied  bool
	}{
		{"enabled without loopback locks out", true, "10.0.0.0/8", true},
		{"enabled with loopback", true, "127.0.0.1/32", false},
		{"disabled is not enforced", false, "10.0.0.0/8", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEmulator(t)
			setAllowlist(t, e.client, client.SetIPAllowlistParams{Enabled: boolRef(tc.enabled), Rules: []client.IPAllowlistRuleParams{{CIDR: tc.cidr}}})
			_, err := e.client.Whoami(t.Context(), client.WhoamiRequest{})
			if tc.denied {
				wantForbidden(t, err, "IP address 127.0.0.1 is not in the IP allowlist of organization "+testOrg)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestIPAllowlistKeyLevelOverridesOrganization(t *testing.T) {
	e, k2, second := twoRoots(t)
	setAllowlist(t, e.client, client.SetIPAllowlistParams{PublicKey: k2.PublicKeyHex(), Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32"}}})
	setAllowlist(t, e.client, client.SetIPAllowlistParams{Enabled: boolRef(true), Rules: []client.IPAllowlistRuleParams{{CIDR: "10.0.0.0/8"}}})
	_, err := e.client.Whoami(t.Context(), client.WhoamiRequest{})
	wantForbidden(t, err, "IP address 127.0.0.1 is not in the IP allowlist of organization")
	if _, err := second.Whoami(t.Context(), client.WhoamiRequest{}); err != nil {
		t.Fatalf("user-2's own allowlist should override the organization's: %v", err)
	}
	// user-2 lifts the lockout; a key-level list then binds only its key.
	if _, err := second.RemoveIPAllowlist(t.Context(), client.RemoveIPAllowlistParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Whoami(t.Context(), client.WhoamiRequest{}); err != nil {
		t.Fatal(err)
	}
	setAllowlist(t, second, client.SetIPAllowlistParams{PublicKey: e.key.PublicKeyHex(), Rules: []client.IPAllowlistRuleParams{{CIDR: "10.0.0.0/8"}}})
	_, err = e.client.Whoami(t.Context(), client.WhoamiRequest{})
	wantForbidden(t, err, "IP allowlist of API key "+e.key.PublicKeyHex())
	if _, err := second.Whoami(t.Context(), client.WhoamiRequest{}); err != nil {
		t.Fatal(err)
	}
}

func TestIPAllowlistOnEvaluationError(t *testing.T) {
	e := newTestEmulator(t)
	unreadable := &caller{PublicKey: e.key.PublicKeyHex(), RemoteAddr: "not-an-address"}
	enforce := func() *apiError {
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		return e.srv.enforceAllowlist(unreadable)
	}
	rules := []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32"}}
	setAllowlist(t, e.client, client.SetIPAllowlistParams{Enabled: boolRef(true), OnEvaluationError: client.OnEvaluationErrorAllow, Rules: rules})
	if err := enforce(); err != nil {
		t.Fatalf("ALLOW: %v", err)
	}
	setAllowlist(t, e.client, client.SetIPAllowlistParams{Enabled: boolRef(true), Rules: rules}) // DENY by default
	if err := enforce(); err == nil || err.status != http.StatusForbidden || !strings.Contains(err.message, `could not evaluate address "not-an-address"`) {
		t.Fatalf("DENY: %v", err)
	}
}
