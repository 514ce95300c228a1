package emulator

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
)

// exampleFixtures is the fixtures file shipped for the binary and the demo.
const exampleFixtures = "../../examples/emulator/fixtures.json"

// Identifiers of examples/emulator/fixtures.json.
const (
	exSubOrg    = "c310906f-a434-4337-9754-5d77604cf7c7"
	exAlice     = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
	exBob       = "89fb0b52-ac56-409e-9562-928e783fc57b"
	exTwoSteps  = "a1a0b213-8e5a-4268-a9b6-93fb46983f39"
	exAnyOfTwo  = "f3bb177c-d38e-43eb-b5d9-1f29a79eaa8a"
	exWallet    = "0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a"
	exApp       = "1f867cf8-cde5-406f-b0ec-970e4c6b344c"
	exTxOK      = "092942a9-2b26-4584-9466-cc73379dbd9e"
	exTxEthFail = "4b2b0a65-2daf-45b7-88ca-0d5a74a26400"
	exTxSolFail = "dc877f04-6303-4afe-af07-658cd7e36c35"
	exBaseUSDC  = "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
	exEthUSDC   = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
)

func loadExampleFixtures(t *testing.T) *Fixtures {
	t.Helper()
	f, err := LoadFixtures(exampleFixtures)
	if err != nil {
		t.Fatalf("LoadFixtures(%s): %v", exampleFixtures, err)
	}
	return f
}

// TestExampleFixturesHaveWhatTheREADMEPromises guards the content of the
// example file, which the demo and the documentation rely on.
func TestExampleFixturesHaveWhatTheREADMEPromises(t *testing.T) {
	f := loadExampleFixtures(t)
	if len(f.SubOrganizations) == 0 || len(f.Users) < 2 {
		t.Fatalf("want a sub-organization and two users: %+v %+v", f.SubOrganizations, f.Users)
	}
	steps := f.MfaPolicies[exAlice]
	if len(steps) != 2 || len(steps[0].RequiredAuthenticationMethods) != 2 ||
		len(steps[1].RequiredAuthenticationMethods[0].Any) != 2 || steps[1].RequiredAuthenticationMethods[0].Any[0].ID == "" {
		t.Fatalf("want a two-step policy and an any-of-two policy with an id: %+v", steps)
	}
	providers, assets := map[string]bool{}, map[string]bool{}
	for _, v := range f.EarnVaults {
		providers[v.Provider], assets[v.Caip19] = true, true
		if v.Display == nil || v.ClaimableClientFee == "" || v.ClaimableClientFeeDisplay == nil || v.ClientFeeWallet == "" || v.ClientFeeBps == "" {
			t.Fatalf("vault %s lacks display or fee fields", v.WrapperAddress)
		}
	}
	if len(f.EarnVaults) < 3 || len(providers) != 2 || len(assets) < 2 {
		t.Fatalf("want 3+ vaults over both providers and two assets: %v %v", providers, assets)
	}
	eth := f.SendTransactionStatuses[exTxEthFail]
	kinds := map[string]bool{}
	for _, r := range eth.Error.RevertChain {
		kinds[r.ErrorType] = true
	}
	if !kinds["unknown"] || !kinds["native"] || !kinds["custom"] || f.SendTransactionStatuses[exTxSolFail].Error.Solana == nil ||
		f.SendTransactionStatuses[exTxOK].Eth.TxHash == "" || len(f.AppStatuses[0].Deployments) != 2 || len(f.EarnPositions[exWallet]) == 0 {
		t.Fatalf("send-transaction, app or position fixtures are incomplete")
	}
}

// TestExampleFixturesServeEveryQuery loads the example file into an
// emulator and reads every seeded record back through the client.
func TestExampleFixturesServeEveryQuery(t *testing.T) {
	f := loadExampleFixtures(t)
	want := loadExampleFixtures(t) // a pristine copy to compare with
	e := newTestEmulator(t, func(o *Options) { o.Fixtures = f })
	ctx := t.Context()

	for _, id := range []string{exTwoSteps, exAnyOfTwo} {
		got, err := e.client.GetMfaPolicy(ctx, client.GetMfaPolicyRequest{UserID: exAlice, MfaPolicyID: id})
		if err != nil || got.MfaPolicy.MfaPolicyID != id {
			t.Fatalf("get_mfa_policy %s: %+v, %v", id, got, err)
		}
	}
	list, err := e.client.GetMfaPolicies(ctx, client.GetMfaPoliciesRequest{UserID: exAlice})
	if err != nil || !reflect.DeepEqual(list.MfaPolicies, want.MfaPolicies[exAlice]) {
		t.Fatalf("get_mfa_policies: %+v, %v", list, err)
	}
	if none, err := e.client.GetMfaPolicies(ctx, client.GetMfaPoliciesRequest{UserID: exBob}); err != nil || len(none.MfaPolicies) != 0 {
		t.Fatalf("bob has no MFA policies: %+v, %v", none, err)
	}

	parent, err := e.client.ListEarnEnabledVaults(ctx, client.ListEarnEnabledVaultsRequest{})
	if err != nil || !reflect.DeepEqual(parent.EnabledVaults, want.EarnVaults) {
		t.Fatalf("the parent sees every vault with its fee fields: %+v, %v", parent, err)
	}
	sub, err := e.client.WithOrganization(exSubOrg).ListEarnEnabledVaults(ctx, client.ListEarnEnabledVaultsRequest{})
	if err != nil || len(sub.EnabledVaults) != len(want.EarnVaults) {
		t.Fatalf("sub-organization: %+v, %v", sub, err)
	}
	for i, v := range sub.EnabledVaults {
		expected := want.EarnVaults[i]
		expected.ClaimableClientFee, expected.ClaimableClientFeeDisplay, expected.ClientFeeWallet = "", nil, ""
		if !reflect.DeepEqual(v, expected) {
			t.Fatalf("sub-organization vault %d = %+v, want %+v", i, v, expected)
		}
	}
	baseB, err := e.client.ListEarnEnabledVaults(ctx, client.ListEarnEnabledVaultsRequest{Provider: client.EarnProviderProtocolB, Caip19: exBaseUSDC})
	if err != nil || len(baseB.EnabledVaults) != 1 || baseB.EnabledVaults[0].Name != "USDC" {
		t.Fatalf("provider B on Base USDC: %+v, %v", baseB, err)
	}
	ethVaults, err := e.client.ListEarnEnabledVaults(ctx, client.ListEarnEnabledVaultsRequest{Caip19: exEthUSDC})
	if err != nil || len(ethVaults.EnabledVaults) != 2 {
		t.Fatalf("Ethereum USDC vaults: %+v, %v", ethVaults, err)
	}

	positions, err := e.client.ListEarnPositions(ctx, client.ListEarnPositionsRequest{WalletAddress: exWallet})
	if err != nil || !reflect.DeepEqual(positions.Positions, want.EarnPositions[exWallet]) {
		t.Fatalf("list_earn_positions: %+v, %v", positions, err)
	}
	app, err := e.client.GetAppStatus(ctx, client.GetAppStatusRequest{AppID: exApp})
	if err != nil || !reflect.DeepEqual(app.AppStatus, want.AppStatuses[0]) {
		t.Fatalf("get_app_status: %+v, %v", app, err)
	}
	for _, id := range []string{exTxOK, exTxEthFail, exTxSolFail} {
		tx, err := e.client.GetSendTransactionStatus(ctx, client.GetSendTransactionStatusRequest{SendTransactionStatusID: id})
		if err != nil || !reflect.DeepEqual(*tx, want.SendTransactionStatuses[id]) {
			t.Fatalf("get_send_transaction_status %s: %+v, %v", id, tx, err)
		}
	}
}

func TestFixturesUnknownFieldIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fixtures.json")
	if err := os.WriteFile(path, []byte(`{"users":[{"userId":"u","userName":"n","email":"x@example.com"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFixtures(path); err == nil || !strings.Contains(err.Error(), `unknown field "email"`) {
		t.Fatalf("LoadFixtures = %v, want an unknown-field error", err)
	}
}

func TestFixtureMfaPolicyOfUnknownUserIsAnError(t *testing.T) {
	key := clienttest.NewAPIKey(t)
	f := &Fixtures{MfaPolicies: map[string][]client.MfaPolicy{"ghost-user": {{MfaPolicyID: "m"}}}}
	_, err := New(Options{OrganizationID: testOrg, RootUsers: []RootUser{{APIPublicKey: key.PublicKeyHex()}}, Fixtures: f})
	if err == nil || !strings.Contains(err.Error(), `unknown user "ghost-user"`) {
		t.Fatalf("New = %v, want an unknown-user error", err)
	}
}

func TestFixtureEnumTyposAreErrors(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	root := []RootUser{{APIPublicKey: key.PublicKeyHex()}}
	for name, f := range map[string]*Fixtures{
		"vault provider":    {EarnVaults: []client.EarnEnabledVault{{EarnVaultRef: client.EarnVaultRef{Provider: "EARN_PROVIDER_MORPHO"}}}},
		"position provider": {EarnPositions: map[string][]client.EarnPosition{"0xw": {{EarnVaultRef: client.EarnVaultRef{Provider: "A"}}}}},
		"mfa method": {Users: []FixtureUser{{UserID: "u", UserName: "u"}}, MfaPolicies: map[string][]client.MfaPolicy{"u": {{
			RequiredAuthenticationMethods: []client.RequiredAuthenticationMethod{{Any: []client.AuthenticationMethod{{Type: "AUTHENTICATION_TYPE_SMOKE_SIGNAL"}}}}}}}},
	} {
		if _, err := New(Options{OrganizationID: "o", RootUsers: root, Fixtures: f}); err == nil || !strings.Contains(err.Error(), "is not one of") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The README gives the private keys of the example users' test keys: they
// must be the pairs of the keys in fixtures.json, and act as those users,
// whom the policies then govern.
func TestExampleFixtureUsersKeysInTheREADME(t *testing.T) {
	readme, err := os.ReadFile("../../examples/emulator/README.md")
	if err != nil {
		t.Fatal(err)
	}
	pairs := regexp.MustCompile(`CUSTODY_API_PUBLIC_KEY=([0-9a-f]{66}) CUSTODY_API_PRIVATE_KEY=([0-9a-f]{64})`).FindAllStringSubmatch(string(readme), -1)
	if len(pairs) != 2 {
		t.Fatalf("the README gives %d test key pairs, want 2", len(pairs))
	}
	e := newTestEmulator(t, func(o *Options) { o.Fixtures = loadExampleFixtures(t) })
	for i, want := range []string{exAlice, exBob} {
		key, err := client.ParseAPIKey(pairs[i][1], pairs[i][2])
		if err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		c := clientFor(t, e.http.URL, key)
		who, err := c.Whoami(t.Context(), whoami())
		if err != nil || who.UserID != want {
			t.Fatalf("pair %d acts as %+v (%v), want user %s", i, who, err, want)
		}
		// No policy allows them anything yet.
		_, err = c.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "x"})
		denied(t, err, "implicitly denied")
	}
}

// A fixture user's API key must be a P-256 public key that no other user
// holds: a key decides who is acting.
func TestFixtureUserAPIKeyErrors(t *testing.T) {
	root := clienttest.NewAPIKey(t)
	for name, tc := range map[string]struct {
		key  string
		want string
	}{
		"not a key":     {"03abcd", "API key \"k\""},
		"a root's key":  {root.PublicKeyHex(), "belongs to another user already"},
		"another's key": {"", "belongs to another user already"},
	} {
		t.Run(name, func(t *testing.T) {
			other, _ := client.GenerateAPIKey()
			key := tc.key
			if key == "" {
				key = other.PublicKeyHex()
			}
			f := &Fixtures{Users: []FixtureUser{
				{UserID: "first", UserName: "first", APIKeys: []FixtureAPIKey{{APIKeyName: "k0", PublicKey: other.PublicKeyHex()}}},
				{UserID: "second", UserName: "second", APIKeys: []FixtureAPIKey{{APIKeyName: "k", PublicKey: key}}}}}
			if tc.key != "" {
				f.Users = f.Users[1:]
			}
			_, err := New(Options{OrganizationID: testOrg, RootUsers: []RootUser{{APIPublicKey: root.PublicKeyHex()}}, Fixtures: f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want %q", err, tc.want)
			}
		})
	}
}

// The documented start (a state file and the example fixtures) can be run
// again as it is: the state file already holds the fixtures, so it is kept
// as it is, with everything made in it since, and nothing is loaded twice.
// Users listed in another order, or a sub-organization renamed through the
// API since, are still the same fixtures.
func TestFixturesOnARestartOfTheirStateAreKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "emulator.state.json")
	e := newTestEmulator(t, func(o *Options) { o.StatePath, o.Fixtures = path, loadExampleFixtures(t) })
	tag, err := e.client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "made between starts"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.WithOrganization(exSubOrg).UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Renamed"}); err != nil {
		t.Fatal(err)
	}
	e.http.Close()
	e.srv.Close()

	reordered := loadExampleFixtures(t)
	slices.Reverse(reordered.Users)
	for name, f := range map[string]*Fixtures{"the same fixtures": loadExampleFixtures(t), "users in another order": reordered} {
		t.Run(name, func(t *testing.T) {
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			again, err := New(Options{OrganizationID: testOrg, RootUsers: []RootUser{{APIPublicKey: e.key.PublicKeyHex()}}, StatePath: path, Fixtures: f})
			if err != nil {
				t.Fatalf("a restart with the fixtures the state was seeded with: %v", err)
			}
			t.Cleanup(again.Close)
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Error("the restart rewrote the state file")
			}
			hs := httptest.NewServer(again)
			t.Cleanup(hs.Close)
			c := clientFor(t, hs.URL, e.key)
			tags, err := c.ListPrivateKeyTags(t.Context(), client.ListPrivateKeyTagsRequest{})
			if err != nil || len(tags.PrivateKeyTags) != 1 || tags.PrivateKeyTags[0].TagID != tag.Result.PrivateKeyTagID {
				t.Fatalf("the tag made before the restart: %+v, %v", tags, err)
			}
			if who, err := c.WithOrganization(exSubOrg).Whoami(t.Context(), client.WhoamiRequest{}); err != nil || who.OrganizationName != "Renamed" {
				t.Fatalf("the renamed sub-organization: %+v, %v", who, err)
			}
			again.mu.Lock()
			users := len(again.st.Users)
			again.mu.Unlock()
			if want := 1 + len(f.Users); users != want {
				t.Fatalf("%d users after the restart, want %d (the root and the fixtures' users, once)", users, want)
			}
		})
	}
}

// Fixtures that the state file was not seeded with are an error on a
// restart, which names what differs and leaves the file as it was: loading
// them would duplicate or overwrite what the state holds, and ignoring them
// would serve other data than the file named.
func TestFixturesOnARestartMustBeTheSeededOnes(t *testing.T) {
	dir := t.TempDir()
	key := clienttest.NewAPIKey(t)
	root := []RootUser{{APIPublicKey: key.PublicKeyHex()}}
	seeded, plain := filepath.Join(dir, "seeded.json"), filepath.Join(dir, "plain.json")
	for path, f := range map[string]*Fixtures{seeded: loadExampleFixtures(t), plain: nil} {
		srv, err := New(Options{OrganizationID: testOrg, RootUsers: root, StatePath: path, Fixtures: f})
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
	}
	moreApps := loadExampleFixtures(t)
	moreApps.AppStatuses = append(moreApps.AppStatuses, client.AppStatus{AppID: "another-app"})
	otherUser := loadExampleFixtures(t)
	otherUser.Users[0].UserName = "carol"
	fewer := loadExampleFixtures(t)
	fewer.EarnVaults, fewer.SubOrganizations = fewer.EarnVaults[1:], nil
	for name, tc := range map[string]struct {
		path string
		f    *Fixtures
		want string
	}{
		"a state made without fixtures":     {plain, loadExampleFixtures(t), "was made without fixtures; fixtures are loaded only into a new state file"},
		"an app status added":               {seeded, moreApps, "was seeded with other fixtures than these (appStatuses differ)"},
		"a user changed":                    {seeded, otherUser, "(users differ)"},
		"fewer vaults, no sub-organization": {seeded, fewer, "(earnVaults, subOrganizations differ)"},
		"empty fixtures on a seeded state":  {seeded, &Fixtures{}, "differ); fixtures are loaded only into a new state file"},
		"fixtures that are wrong anyway":    {seeded, &Fixtures{MfaPolicies: map[string][]client.MfaPolicy{"ghost": {}}}, `unknown user "ghost"`},
	} {
		t.Run(name, func(t *testing.T) {
			before, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(Options{StatePath: tc.path, Fixtures: tc.f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want %q", err, tc.want)
			}
			if after, _ := os.ReadFile(tc.path); !bytes.Equal(after, before) {
				t.Error("a refused restart changed the state file")
			}
		})
	}
	// Empty fixtures on a state made without any seed nothing: accepted.
	if srv, err := New(Options{StatePath: plain, Fixtures: &Fixtures{}}); err != nil {
		t.Errorf("empty fixtures on a state made without fixtures: %v", err)
	} else {
		srv.Close()
	}
}
