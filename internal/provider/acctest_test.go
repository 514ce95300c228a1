package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator/emulatortest"
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
func newAccEmulator(t testing.TB, mutate ...func(*emulator.Options)) *accEmulator {
	t.Helper()
	e := emulatortest.Start(t, accOrg, "Acceptance Org", mutate...)
	return &accEmulator{srv: e.Srv, url: e.URL, key: e.Key, client: e.Client}
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
func accClient(t testing.TB, url string, key *client.APIKey) *client.Client {
	t.Helper()
	return emulatortest.NewClient(t, url, accOrg, key)
}

// providerBlock configures the provider for this emulator in HCL, with
// extra attribute lines.
func (e *accEmulator) providerBlock(extra ...string) string {
	return e.providerBlockFor(accOrg, extra...)
}

// providerBlockFor is providerBlock for organization org (a fixture's
// sub-organization, reached with the root user's key).
func (e *accEmulator) providerBlockFor(org string, extra ...string) string {
	return providerHCL(e.url, org, e.key, extra...)
}

// providerHCL is a provider block with these settings and extra
// attribute lines.
func providerHCL(url, org string, key *client.APIKey, extra ...string) string {
	return fmt.Sprintf(`
provider "custody" {
  base_url        = %q
  organization_id = %q
  api_public_key  = %q
  api_private_key = %q
  %s
}
`, url, org, key.PublicKeyHex(), key.PrivateKeyHex(), strings.Join(extra, "\n  "))
}

// config is the provider block followed by body.
func (e *accEmulator) config(body string) string { return e.providerBlock() + body }

// dataBlock is the provider block and one data block of type typ named
// "test", with string attributes given as name, value pairs.
func (e *accEmulator) dataBlock(typ string, attrs ...string) string {
	var body strings.Builder
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&body, "  %s = %q\n", attrs[i], attrs[i+1])
	}
	return e.config(fmt.Sprintf("\ndata %q \"test\" {\n%s}\n", typ, body.String()))
}

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

// accRequests is accRequestsSince the emulator started.
func accRequests(e *accEmulator, what string, want map[string]int) resource.TestCheckFunc {
	return accRequestsSince(e, &map[string]int{}, what, want)
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

// planAction is the plan checks of a step that plans action for addr,
// and passes more checks.
func planAction(addr string, action plancheck.ResourceActionType, more ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: append([]plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)}, more...)}
}

// thenEmptyPlan is the plan checks of a step after whose apply a new plan
// is empty.
func thenEmptyPlan() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
}

// expectAction is the plan checks of a step that plans action for addr
// (and passes more checks), and after whose apply a new plan is empty.
func expectAction(addr string, action plancheck.ResourceActionType, more ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	checks := planAction(addr, action, more...)
	checks.PostApplyPostRefresh = thenEmptyPlan().PostApplyPostRefresh
	return checks
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

// readFails is a step whose apply fails with an error holding each phrase
// (errorPhrases): what the service refused, for a data source its read.
func readFails(config string, phrases ...string) resource.TestStep {
	return resource.TestStep{Config: config, ExpectError: errorPhrases(phrases...)}
}

// blankRefused is a plan-only step of config that the plan refuses
// because attr is blank.
func blankRefused(config, attr string) resource.TestStep {
	return planFails(config, errorPhrases(attr, "must not be empty or only white space"))
}

// accReadErrors tests a data source read by one id attribute, attr: an
// id the example fixtures lack (missing) fails the read with an error
// holding phrases, and a blank one fails the plan.
func accReadErrors(t *testing.T, config func(e *accEmulator, id string) string, attr, blank, missing string, phrases ...string) {
	t.Helper()
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{readFails(config(e, missing), phrases...), blankRefused(config(e, blank), attr)},
	})
}

// attrIs checks one attribute of addr in state.
func attrIs(addr, attr string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), want)
}

// attrsAre checks attributes of addr in state, one check each.
func attrsAre(addr string, want map[string]knownvalue.Check) []statecheck.StateCheck {
	checks := make([]statecheck.StateCheck, 0, len(want))
	for _, attr := range slices.Sorted(maps.Keys(want)) {
		checks = append(checks, attrIs(addr, attr, want[attr]))
	}
	return checks
}

// plannedUnknown checks that attr of addr is unknown in the plan.
func plannedUnknown(addr, attr string) plancheck.PlanCheck {
	return plancheck.ExpectUnknownValue(addr, tfjsonpath.New(attr))
}

// plannedIs checks one attribute of addr in the plan.
func plannedIs(addr, attr string, want knownvalue.Check) plancheck.PlanCheck {
	return plancheck.ExpectKnownValue(addr, tfjsonpath.New(attr), want)
}

// accNonBlank matches an id the service assigns.
var accNonBlank = regexp.MustCompile(`^\S+$`)

// accRFC3339 matches the timestamps the provider writes.
var accRFC3339 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$`)

// checkService is a check that asks the service, not the state.
func checkService(check func(ctx context.Context) error) resource.TestCheckFunc {
	return func(*terraform.State) error { return check(context.Background()) }
}

// checkID is a check of the object whose id addr holds in state.
func checkID(addr string, check func(ctx context.Context, id string) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		return check(context.Background(), rs.Primary.ID)
	}
}

// outside is a step's PreConfig that changes an object behind
// Terraform's back (the drift a refresh must find); the test fails if the
// change does.
func outside(t *testing.T, change func(ctx context.Context) error) func() {
	t.Helper()
	return func() {
		if err := change(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// accImport is how a test imports addr: by id, by idFunc, or (neither)
// by the id in state.
type accImport struct {
	addr   string
	id     string
	idFunc resource.ImportStateIdFunc
	check  resource.ImportStateCheckFunc // of the imported state, if set
}

// verify is a `terraform import` step whose state must equal the applied
// one but for the ignored attributes.
func (i accImport) verify(ignore ...string) resource.TestStep {
	return resource.TestStep{ResourceName: i.addr, ImportState: true, ImportStateVerify: true,
		ImportStateId: i.id, ImportStateIdFunc: i.idFunc, ImportStateVerifyIgnore: ignore, ImportStateCheck: i.check}
}

// block is a step importing with an import block, whose plan passes
// checks.
func (i accImport) block(checks ...plancheck.PlanCheck) resource.TestStep {
	return resource.TestStep{ResourceName: i.addr, ImportState: true, ImportStateKind: resource.ImportBlockWithID,
		ImportStateId: i.id, ImportStateIdFunc: i.idFunc, ImportPlanChecks: resource.ImportPlanChecks{PreApply: checks}}
}

// refreshStep is one `terraform refresh` (one provider configuration, so
// one list cache) between PreConfig and Check; `terraform show` reads no
// API. want counts the emulator's requests in between (accRequestsSince);
// more checks the refreshed state.
func refreshStep(e *accEmulator, what string, want map[string]int, more ...resource.TestCheckFunc) resource.TestStep {
	before := map[string]int{}
	return resource.TestStep{
		RefreshState: true,
		PreConfig:    func() { before = e.srv.RequestCounts() },
		Check:        resource.ComposeAggregateTestCheckFunc(append([]resource.TestCheckFunc{accRequestsSince(e, &before, what, want)}, more...)...),
	}
}

// stateHolds checks how many resources state holds.
func stateHolds(n int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if got := len(s.RootModule().Resources); got != n {
			return fmt.Errorf("state holds %d resources, want %d", got, n)
		}
		return nil
	}
}

// expectNoSubmits fails t if the emulator was sent any submission: a plan
// refused for its configuration sends nothing.
func expectNoSubmits(t *testing.T, e *accEmulator) {
	t.Helper()
	for op := range e.srv.RequestCounts() {
		if strings.HasPrefix(op, "submit/") {
			t.Errorf("a plan with invalid configuration submitted %s", op)
		}
	}
}
