package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// ipAllowlistLoopback lets the acceptance tests' own requests through: the
// emulator listens on 127.0.0.1, and ::1 covers a resolver that prefers it.
const ipAllowlistLoopback = `
    { cidr = "127.0.0.0/8", label = "loopback" },
    { cidr = "::1/128" },`

// ipAllowlistWithUser adds a root user with a fresh key, whose client the
// test uses as a second, independent caller.
func ipAllowlistWithUser(t *testing.T, userID string) (*client.APIKey, func(*emulator.Options)) {
	t.Helper()
	k := clienttest.NewAPIKey(t)
	return k, func(o *emulator.Options) {
		o.RootUsers = append(o.RootUsers, emulator.RootUser{UserID: userID, UserName: userID, APIPublicKey: k.PublicKeyHex()})
	}
}

// ipAllowlistGone is a CheckDestroy: the service has no allowlist for key.
func ipAllowlistGone(e *accEmulator, publicKey string) resource.TestCheckFunc {
	return checkService(func(ctx context.Context) error {
		_, err := e.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{PublicKey: publicKey})
		if !errors.Is(err, client.ErrNotFound) {
			return fmt.Errorf("want the allowlist gone (NOT_FOUND), got err=%v", err)
		}
		return nil
	})
}

// ipAllowlistStoredCIDRs checks the rules the service stores.
func ipAllowlistStoredCIDRs(e *accEmulator, publicKey string, want ...string) resource.TestCheckFunc {
	return checkService(func(ctx context.Context) error {
		got, err := e.client.GetIPAllowlist(ctx, client.GetIPAllowlistRequest{PublicKey: publicKey})
		if err != nil {
			return err
		}
		var cidrs []string
		for _, r := range got.Allowlist.Rules {
			cidrs = append(cidrs, r.CIDR)
		}
		slices.Sort(cidrs)
		slices.Sort(want)
		if !slices.Equal(cidrs, want) {
			return fmt.Errorf("stored rules %v, want %v", cidrs, want)
		}
		return nil
	})
}

// ipAllowlistErrRE matches an error message across the line breaks
// Terraform wraps it with: each space in want matches any white space.
func ipAllowlistErrRE(want string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(want, " ", `\s+`))
}

func ipAllowlistRule(cidr string, label knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{"cidr": knownvalue.StringExact(cidr), "label": label})
}

func TestAccIPAllowlist_organization(t *testing.T) {
	e := newAccEmulator(t)
	const addr = "custody_ip_allowlist.org"
	v1 := e.config(`
resource "custody_ip_allowlist" "org" {
  enabled = true
  rules = [` + ipAllowlistLoopback + `
  ]
}
`)
	v2 := e.config(`
resource "custody_ip_allowlist" "org" {
  enabled             = true
  on_evaluation_error = "ALLOW"
  rules = [` + ipAllowlistLoopback + `
    { cidr = "10.0.0.0/8", label = "office" },
  ]
}
`)
	v2State := []statecheck.StateCheck{
		attrIs(addr, "on_evaluation_error", knownvalue.StringExact("ALLOW")),
		attrIs(addr, "rules", knownvalue.SetSizeExact(3)),
		attrIs(addr, "rules", knownvalue.SetPartial([]knownvalue.Check{ipAllowlistRule("10.0.0.0/8", knownvalue.StringExact("office"))})),
	}
	imp := accImport{addr: addr, id: "organization"}
	accTest(t, resource.TestCase{
		CheckDestroy: ipAllowlistGone(e, ""),
		Steps: []resource.TestStep{
			{
				Config:           v1,
				ConfigPlanChecks: planAction(addr, plancheck.ResourceActionCreate),
				ConfigStateChecks: attrsAre(addr, map[string]knownvalue.Check{
					"id":                  knownvalue.StringExact("organization"),
					"public_key":          knownvalue.Null(),
					"enabled":             knownvalue.Bool(true),
					"on_evaluation_error": knownvalue.StringExact("DENY"),
					"rules": knownvalue.SetExact([]knownvalue.Check{
						ipAllowlistRule("127.0.0.0/8", knownvalue.StringExact("loopback")),
						ipAllowlistRule("::1/128", knownvalue.Null()),
					}),
					"timeouts": knownvalue.Null(),
				}),
				Check: ipAllowlistStoredCIDRs(e, "", "127.0.0.0/8", "::1/128"),
			},
			{
				// Adding a rule and changing on_evaluation_error is one
				// set_ip_allowlist, not a replacement.
				Config:            v2,
				ConfigPlanChecks:  expectAction(addr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: v2State,
				Check:             ipAllowlistStoredCIDRs(e, "", "10.0.0.0/8", "127.0.0.0/8", "::1/128"),
			},
			imp.verify(),
			imp.block(plannedIs(addr, "on_evaluation_error", knownvalue.StringExact("ALLOW")), plannedIs(addr, "enabled", knownvalue.Bool(true))),
			{
				// Drift: someone switches the allowlist off and drops a rule.
				PreConfig: outside(t, func(ctx context.Context) error {
					off := false
					_, err := e.client.SetIPAllowlist(ctx, client.SetIPAllowlistParams{Enabled: &off,
						OnEvaluationError: "ALLOW", Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.0/8", Label: "loopback"}, {CIDR: "::1/128"}}})
					return err
				}),
				Config:            v2,
				ConfigPlanChecks:  planAction(addr, plancheck.ResourceActionUpdate, plannedIs(addr, "enabled", knownvalue.Bool(true))),
				ConfigStateChecks: v2State,
				Check:             ipAllowlistStoredCIDRs(e, "", "10.0.0.0/8", "127.0.0.0/8", "::1/128"),
			},
			{
				// Drift: the allowlist removed outside Terraform is created again.
				PreConfig: outside(t, func(ctx context.Context) error {
					_, err := e.client.RemoveIPAllowlist(ctx, client.RemoveIPAllowlistParams{})
					return err
				}),
				Config:           v2,
				ConfigPlanChecks: planAction(addr, plancheck.ResourceActionCreate),
				Check:            ipAllowlistStoredCIDRs(e, "", "10.0.0.0/8", "127.0.0.0/8", "::1/128"),
			},
		},
	})
}

// TestAccIPAllowlist_defaults: enabled and on_evaluation_error left out
// plan as what the service stores, so a second plan is empty.
func TestAccIPAllowlist_defaults(t *testing.T) {
	e := newAccEmulator(t)
	const addr = "custody_ip_allowlist.org"
	accTest(t, resource.TestCase{
		CheckDestroy: ipAllowlistGone(e, ""),
		Steps: []resource.TestStep{{
			Config: e.config(`
resource "custody_ip_allowlist" "org" {
  rules = [{ cidr = "192.0.2.0/24" }]
}
`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plannedIs(addr, "enabled", knownvalue.Bool(false)),
					plannedIs(addr, "on_evaluation_error", knownvalue.StringExact("DENY")),
				},
				PostApplyPostRefresh: thenEmptyPlan().PostApplyPostRefresh,
			},
			ConfigStateChecks: attrsAre(addr, map[string]knownvalue.Check{
				"enabled": knownvalue.Bool(false), "on_evaluation_error": knownvalue.StringExact("DENY")}),
		}},
	})
}

// TestAccIPAllowlist_keyLevel manages the allowlist of another API key and
// replaces it when public_key changes.
func TestAccIPAllowlist_keyLevel(t *testing.T) {
	k2, add2 := ipAllowlistWithUser(t, "user-2")
	k3, add3 := ipAllowlistWithUser(t, "user-3")
	e := newAccEmulator(t, add2, add3)
	const addr = "custody_ip_allowlist.key"
	imp := accImport{addr: addr, id: k3.PublicKeyHex()}
	cfg := func(pub string) string {
		return e.config(fmt.Sprintf(`
resource "custody_ip_allowlist" "key" {
  public_key = %q
  rules = [`+ipAllowlistLoopback+`
  ]
}
`, pub))
	}
	accTest(t, resource.TestCase{
		CheckDestroy: ipAllowlistGone(e, k3.PublicKeyHex()),
		Steps: []resource.TestStep{
			{
				Config: cfg(k2.PublicKeyHex()),
				ConfigStateChecks: attrsAre(addr, map[string]knownvalue.Check{
					"id":                  knownvalue.StringExact(k2.PublicKeyHex()),
					"public_key":          knownvalue.StringExact(k2.PublicKeyHex()),
					"enabled":             knownvalue.Null(),
					"on_evaluation_error": knownvalue.StringExact("DENY"),
					"rules":               knownvalue.SetSizeExact(2),
					"timeouts":            knownvalue.Null(),
				}),
				ConfigPlanChecks: thenEmptyPlan(),
				Check: resource.ComposeTestCheckFunc(
					ipAllowlistStoredCIDRs(e, k2.PublicKeyHex(), "127.0.0.0/8", "::1/128"),
					ipAllowlistGone(e, ""), // the organization's allowlist is untouched
				),
			},
			{
				Config:            cfg(k3.PublicKeyHex()),
				ConfigPlanChecks:  planAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: []statecheck.StateCheck{attrIs(addr, "id", knownvalue.StringExact(k3.PublicKeyHex()))},
				Check: resource.ComposeTestCheckFunc(
					ipAllowlistGone(e, k2.PublicKeyHex()),
					ipAllowlistStoredCIDRs(e, k3.PublicKeyHex(), "127.0.0.0/8", "::1/128"),
				),
			},
			imp.verify(),
			imp.block(),
		},
	})
}

func TestAccIPAllowlist_planErrors(t *testing.T) {
	e := newAccEmulator(t)
	const key = "02" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  rules = [{ cidr = "10.0.0.300/8" }]
}`), ipAllowlistErrRE(`is not an IPv4 or IPv6 CIDR block`)),
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  rules = [{ cidr = "10.1.2.3/8" }]
}`), ipAllowlistErrRE(`host bits set(.|\n)*did you mean 10\.0\.0\.0/8`)),
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  public_key = "`+key+`"
  enabled    = true
  rules      = []
}`), ipAllowlistErrRE(`enabled applies to the organization-level allowlist only`)),
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  public_key = "04abc"
  rules      = []
}`), ipAllowlistErrRE(`compressed P-256 point in lower-case hex`)),
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  public_key = "`+key[:2]+"ABCDEF"+key[8:]+`"
  rules      = []
}`), ipAllowlistErrRE(`compressed P-256 point in lower-case hex`)),
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  on_evaluation_error = "deny"
  rules               = []
}`), ipAllowlistErrRE(`must be one of(.|\n)*"ALLOW"(.|\n)*"DENY"`)),
			planFails(e.config(`resource "custody_ip_allowlist" "x" {
  rules = [{ cidr = "10.0.0.0/8", label = "" }]
}`), ipAllowlistErrRE(`must not be empty or only white space`)),
			{
				Config:        e.config(`resource "custody_ip_allowlist" "x" { rules = [] }`),
				ResourceName:  "custody_ip_allowlist.x",
				ImportState:   true,
				ImportStateId: "org",
				ExpectError:   ipAllowlistErrRE(`neither "organization"(.|\n)*nor an API key's public key`),
			},
		},
	})
}

// TestAccIPAllowlist_lockout shows what the documentation warns about: an
// enabled organization-level allowlist that leaves out Terraform's address
// applies, then refuses the provider's next request. A second root user
// with its own key-level allowlist (which overrides the organization's)
// then removes it, and Terraform recreates a correct one.
func TestAccIPAllowlist_lockout(t *testing.T) {
	k2, add2 := ipAllowlistWithUser(t, "user-2")
	e := newAccEmulator(t, add2)
	c2 := accClient(t, e.url, k2)
	const addr = "custody_ip_allowlist.org"
	accTest(t, resource.TestCase{
		CheckDestroy: ipAllowlistGone(e, ""),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if _, err := c2.SetIPAllowlist(context.Background(), client.SetIPAllowlistParams{PublicKey: k2.PublicKeyHex(),
						Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.0/8"}, {CIDR: "::1/128"}}}); err != nil {
						t.Fatal(err)
					}
				},
				Config: e.config(`
resource "custody_ip_allowlist" "org" {
  enabled = true
  rules   = [{ cidr = "192.0.2.0/24", label = "elsewhere" }]
}
`),
				// The apply succeeds; the refresh after it is refused, and
				// the error says how to recover.
				ExpectError: ipAllowlistErrRE(`not in the IP allowlist(.|\n)*another API key that is still allowed`),
			},
			{
				PreConfig: func() {
					if _, err := e.client.GetIPAllowlist(context.Background(), client.GetIPAllowlistRequest{}); err == nil {
						t.Fatal("the provider's key should be locked out")
					}
					if _, err := c2.RemoveIPAllowlist(context.Background(), client.RemoveIPAllowlistParams{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: e.config(`
resource "custody_ip_allowlist" "org" {
  enabled = true
  rules = [` + ipAllowlistLoopback + `
  ]
}
`),
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate),
				Check:            ipAllowlistStoredCIDRs(e, "", "127.0.0.0/8", "::1/128"),
			},
		},
	})
}
