package provider

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

const accOrg = "org-acc"

// accEmulator is an in-process emulator for one acceptance test, with a
// client of it for PreConfig drift and CheckDestroy.
type accEmulator struct {
	srv    *emulator.Server
	url    string
	key    *client.APIKey
	client *client.Client
}

// newAccEmulator starts an emulator on 127.0.0.1 whose root user owns a
// fresh key; mutate adjusts its options.
func newAccEmulator(t *testing.T, mutate ...func(*emulator.Options)) *accEmulator {
	t.Helper()
	key, err := client.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	opts := emulator.Options{OrganizationID: accOrg, OrganizationName: "Acceptance Org",
		RootUsers: []emulator.RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: key.PublicKeyHex()}}}
	for _, m := range mutate {
		m(&opts)
	}
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("emulator: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &accEmulator{srv: srv, url: hs.URL, key: key, client: accClient(t, hs.URL, key)}
}

// accTest is resource.Test against the in-process provider, after
// testAccPreCheck: tc holds the rest (steps, CheckDestroy, ...).
func accTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	if tc.PreCheck != nil || tc.ProtoV6ProviderFactories != nil {
		t.Fatal("accTest sets PreCheck and ProtoV6ProviderFactories itself")
	}
	tc.PreCheck = func() { testAccPreCheck(t) }
	tc.ProtoV6ProviderFactories = testAccProtoV6ProviderFactories
	resource.Test(t, tc)
}

// accClient is a client for test code (not the provider's own).
func accClient(t *testing.T, url string, key *client.APIKey) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: url, OrganizationID: accOrg, APIPublicKey: key.PublicKeyHex(), APIPrivateKey: key.PrivateKeyHex(),
		PollInterval: 10 * time.Millisecond, PollIntervalMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// providerBlock configures the provider for this emulator in HCL, with
// extra attribute lines.
func (e *accEmulator) providerBlock(extra ...string) string {
	return e.providerBlockFor(accOrg, extra...)
}

// providerBlockFor is providerBlock for organization org (a fixture's
// sub-organization, reached with the root user's key).
func (e *accEmulator) providerBlockFor(org string, extra ...string) string {
	return fmt.Sprintf(`
provider "custody" {
  base_url        = %q
  organization_id = %q
  api_public_key  = %q
  api_private_key = %q
  %s
}
`, e.url, org, e.key.PublicKeyHex(), e.key.PrivateKeyHex(), strings.Join(extra, "\n  "))
}

// config is the provider block followed by body.
func (e *accEmulator) config(body string) string { return e.providerBlock() + body }

// withExampleFixtures loads examples/emulator/fixtures.json, the same data
// the emulator's -fixtures flag reads, into the test's emulator.
func withExampleFixtures(t *testing.T) func(*emulator.Options) {
	t.Helper()
	f, err := emulator.LoadFixtures("../../examples/emulator/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	return func(o *emulator.Options) { o.Fixtures = f }
}

// accRequestsSince checks the emulator's requests since *before
// against want (operation → count; a negative count means "at most -n").
func accRequestsSince(e *accEmulator, before *map[string]int, what string, want map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		after := e.srv.RequestCounts()
		for op, n := range want {
			got := after[op] - (*before)[op]
			if (n >= 0 && got != n) || (n < 0 && got > -n) {
				return fmt.Errorf("%s made %d %s requests, want %s", what, got, op, accRequestsWant(n))
			}
		}
		return nil
	}
}

func accRequestsWant(n int) string {
	if n < 0 {
		return fmt.Sprintf("at most %d", -n)
	}
	return fmt.Sprint(n)
}

// planFails is a plan-only step of config whose plan must fail with an
// error matching want.
func planFails(config string, want *regexp.Regexp) resource.TestStep {
	return resource.TestStep{Config: config, PlanOnly: true, ExpectError: want}
}

// expectAction is the plan checks of a step that plans action for addr,
// and after whose apply a new plan is empty.
func expectAction(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

// errorPhrases matches an error that holds each phrase, in order.
// Terraform wraps long diagnostics, so each space in a phrase matches any
// run of white space.
func errorPhrases(phrases ...string) *regexp.Regexp {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}
