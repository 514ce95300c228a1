package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const (
	roSubOrg   = "sub-org-1"
	roUser     = "user-with-policies"
	roBareUser = "user-without-policies"
	roWallet   = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01"
	roSolana   = "So1anaWa11etAddre55Base58CaseSensitive11"
	baseUSDC   = "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
	ethUSDC    = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
)

// readonlyFixtures is a small, exact data set for the query tests; the
// example file is exercised by fixtures_test.go.
func readonlyFixtures() *Fixtures {
	ts := client.Timestamp{Seconds: "1793000000", Nanos: "0"}
	vault := func(wrapper, provider, caip19 string) client.EarnEnabledVault {
		return client.EarnEnabledVault{EarnVaultRef: client.EarnVaultRef{WrapperAddress: wrapper, Provider: provider, Caip19: caip19}, ApyPct: "0.05",
			ClaimableClientFee: "100", ClaimableClientFeeDisplay: &client.EarnValueDisplay{USD: "0.0001", Crypto: "0.0001"}, ClientFeeWallet: "0xfee"}
	}
	return &Fixtures{
		SubOrganizations: []FixtureOrganization{{OrganizationID: roSubOrg, Name: "Sub"}},
		Users:            []FixtureUser{{UserID: roUser, UserName: "alice"}, {UserID: roBareUser, UserName: "bob"}},
		MfaPolicies: map[string][]client.MfaPolicy{roUser: {
			{MfaPolicyID: "mfa-1", MfaPolicyName: "one", Condition: "true", Order: 1, CreatedAt: ts, UpdatedAt: ts,
				RequiredAuthenticationMethods: []client.RequiredAuthenticationMethod{{Any: []client.AuthenticationMethod{{Type: "AUTHENTICATION_TYPE_PASSKEY"}}}}},
			{MfaPolicyID: "mfa-2", MfaPolicyName: "two", Condition: "false", Order: 2, CreatedAt: ts, UpdatedAt: ts},
		}},
		EarnVaults: []client.EarnEnabledVault{
			vault("w-a-base", client.EarnProviderProtocolA, baseUSDC),
			vault("w-b-base", client.EarnProviderProtocolB, baseUSDC),
			vault("w-a-eth", client.EarnProviderProtocolA, ethUSDC),
		},
		EarnPositions: map[string][]client.EarnPosition{
			strings.ToLower(roWallet): {{EarnVaultRef: client.EarnVaultRef{WrapperAddress: "w-a-base", Provider: client.EarnProviderProtocolA, Caip19: baseUSDC}, CurrentValue: "42"}},
			roSolana:                  {{EarnVaultRef: client.EarnVaultRef{WrapperAddress: "w-sol"}, CurrentValue: "7"}},
		},
		AppStatuses: []client.AppStatus{{AppID: "app-1", TargetedDeploymentID: "d-1",
			Deployments: []client.DeploymentStatus{{DeploymentID: "d-1", ReadyReplicas: 1, DesiredReplicas: 1, LastUpdatedTime: ts}}}},
		SendTransactionStatuses: map[string]client.GetSendTransactionStatusResponse{
			"tx-1": {TxStatus: "CONFIRMED", Eth: &client.EthSendTransactionStatus{TxHash: "0xabc"}},
		},
	}
}

func readonlyEmulator(t *testing.T) *testEmulator {
	t.Helper()
	return newTestEmulator(t, func(o *Options) { o.Fixtures = readonlyFixtures() })
}

// query posts a stamped query body as is.
func (e *testEmulator) query(t *testing.T, op, body string) rawAnswer {
	t.Helper()
	return e.post(t, "/public/v1/query/"+op, []byte(body), e.key)
}

// wantAPIStatus checks that a client call failed with the given HTTP
// status and a message naming want.
func wantAPIStatus(t *testing.T, err error, status int, want string) {
	t.Helper()
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != status || !strings.Contains(apiErr.Message, want) {
		t.Fatalf("err = %v, want HTTP %d naming %q", err, status, want)
	}
}

func TestQueryRequestRefusals(t *testing.T) {
	e := readonlyEmulator(t)
	org := fmt.Sprintf(`"organizationId":%q`, testOrg)
	for _, c := range []struct{ op, body, want string }{
		{"get_mfa_policy", `{` + org + `,"mfaPolicyId":"mfa-1"}`, "missing required field userId"},
		{"get_mfa_policy", `{` + org + `,"userId":"` + roUser + `"}`, "missing required field mfaPolicyId"},
		{"get_mfa_policy", `{` + org + `,"userId":"","mfaPolicyId":"mfa-1"}`, "field userId must not be empty"},
		{"get_mfa_policy", `{` + org + `,"userId":"` + roUser + `","mfaPolicyId":" "}`, "field mfaPolicyId must not be empty"},
		{"get_mfa_policies", `{` + org + `}`, "missing required field userId"},
		{"get_mfa_policies", `{` + org + `,"userId":"u","extra":1}`, `unknown field "extra"`},
		{"list_supported_assets", `{` + org + `}`, "missing required field caip2"},
		{"list_earn_positions", `{` + org + `}`, "missing required field walletAddress"},
		{"list_earn_positions", `{` + org + `,"walletAddress":""}`, "field walletAddress must not be empty"},
		{"get_app_status", `{` + org + `}`, "missing required field appId"},
		{"get_app_status", `{` + org + `,"appId":""}`, "field appId must not be empty"},
		{"get_send_transaction_status", `{` + org + `}`, "missing required field sendTransactionStatusId"},
		{"get_send_transaction_status", `{` + org + `,"sendTransactionStatusId":""}`, "field sendTransactionStatusId must not be empty"},
		{"list_earn_enabled_vaults", `{` + org + `,"provider":7}`, "field provider: wrong JSON type"},
	} {
		t.Run(c.op+" "+c.want, func(t *testing.T) {
			wantError(t, e.query(t, c.op, c.body), http.StatusBadRequest, c.want)
		})
	}
}

func TestMfaPolicyQueries(t *testing.T) {
	e := readonlyEmulator(t)
	ctx := t.Context()
	got, err := e.client.GetMfaPolicy(ctx, client.GetMfaPolicyRequest{UserID: roUser, MfaPolicyID: "mfa-1"})
	if err != nil || !reflect.DeepEqual(got.MfaPolicy, readonlyFixtures().MfaPolicies[roUser][0]) {
		t.Fatalf("get_mfa_policy = %+v, %v", got, err)
	}
	list, err := e.client.GetMfaPolicies(ctx, client.GetMfaPoliciesRequest{UserID: roUser})
	if err != nil || len(list.MfaPolicies) != 2 || list.MfaPolicies[1].MfaPolicyID != "mfa-2" {
		t.Fatalf("get_mfa_policies = %+v, %v", list, err)
	}
	// A policy without steps still answers the required list as [].
	a := e.query(t, "get_mfa_policy", fmt.Sprintf(`{"organizationId":%q,"userId":%q,"mfaPolicyId":"mfa-2"}`, testOrg, roUser))
	if a.Status != http.StatusOK || !strings.Contains(string(a.Raw), `"requiredAuthenticationMethods":[]`) {
		t.Fatalf("get_mfa_policy mfa-2: %d %s", a.Status, a.Raw)
	}
	a = e.query(t, "get_mfa_policies", fmt.Sprintf(`{"organizationId":%q,"userId":%q}`, testOrg, roBareUser))
	if a.Status != http.StatusOK || string(a.Raw) != `{"mfaPolicies":[]}` {
		t.Fatalf("a user without policies: %d %s", a.Status, a.Raw)
	}
	_, err = e.client.GetMfaPolicy(ctx, client.GetMfaPolicyRequest{UserID: "ghost-user", MfaPolicyID: "mfa-1"})
	wantAPIStatus(t, err, http.StatusNotFound, "user ghost-user not found")
	_, err = e.client.GetMfaPolicies(ctx, client.GetMfaPoliciesRequest{UserID: "ghost-user"})
	wantAPIStatus(t, err, http.StatusNotFound, "user ghost-user not found")
	_, err = e.client.GetMfaPolicy(ctx, client.GetMfaPolicyRequest{UserID: roUser, MfaPolicyID: "ghost-policy"})
	wantAPIStatus(t, err, http.StatusNotFound, "MFA policy ghost-policy not found")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("a 404 must match client.ErrNotFound: %v", err)
	}
}

func TestListSupportedAssets(t *testing.T) {
	e := readonlyEmulator(t)
	for _, chain := range supportedChains {
		t.Run(chain, func(t *testing.T) {
			got, err := e.client.ListSupportedAssets(t.Context(), client.ListSupportedAssetsRequest{Caip2: chain})
			if err != nil || len(got.Assets) == 0 {
				t.Fatalf("%v, %v", got, err)
			}
			for _, a := range got.Assets {
				if !strings.HasPrefix(a.Caip19, chain+"/") || !caip19Shape.MatchString(a.Caip19) || a.Symbol == "" || a.Name == "" ||
					a.Decimals == nil || a.Stable == nil || a.LogoURL != "https://assets.emulator.invalid/"+a.Symbol+".png" {
					t.Fatalf("asset %+v is incomplete or not of chain %s", a, chain)
				}
			}
		})
	}
	eth, _ := e.client.ListSupportedAssets(t.Context(), client.ListSupportedAssetsRequest{Caip2: "eip155:1"})
	stable := map[string]bool{}
	for _, a := range eth.Assets {
		stable[a.Caip19] = *a.Stable
	}
	if stable["eip155:1/slip44:60"] || !stable[ethUSDC] {
		t.Fatalf("ether must not be stable and USDC must be: %v", stable)
	}
}

func TestListSupportedAssetsSolanaAliases(t *testing.T) {
	e := readonlyEmulator(t)
	for alias, canonical := range map[string]string{"solana:mainnet": solanaMainnet, "solana:devnet": solanaDevnet} {
		got, err := e.client.ListSupportedAssets(t.Context(), client.ListSupportedAssetsRequest{Caip2: alias})
		if err != nil || len(got.Assets) == 0 || got.Assets[0].Caip19 != canonical+"/slip44:501" || *got.Assets[0].Decimals != 9 {
			t.Fatalf("%s: %+v, %v", alias, got, err)
		}
		want, _ := e.client.ListSupportedAssets(t.Context(), client.ListSupportedAssetsRequest{Caip2: canonical})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s answers %+v, %s answers %+v", alias, got, canonical, want)
		}
	}
}

func TestListSupportedAssetsRefusesOtherChains(t *testing.T) {
	e := readonlyEmulator(t)
	for _, chain := range []string{"", "eip155:2", "EIP155:1", "eip155:01", "solana:testnet", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvd", "bip122:000000000019d6689c085ae165831e93"} {
		_, err := e.client.ListSupportedAssets(t.Context(), client.ListSupportedAssetsRequest{Caip2: chain})
		for _, want := range []string{"field caip2", fmt.Sprintf("%q", chain), "eip155:421614", solanaMainnet, solanaDevnet, "solana:mainnet"} {
			wantAPIStatus(t, err, http.StatusBadRequest, want)
		}
	}
}

func vaultWrappers(vs []client.EarnEnabledVault) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.WrapperAddress)
	}
	return out
}

func TestListEarnEnabledVaultsFilters(t *testing.T) {
	e := readonlyEmulator(t)
	for _, c := range []struct {
		name             string
		provider, caip19 string
		want             []string
	}{
		{"no filter", "", "", []string{"w-a-base", "w-b-base", "w-a-eth"}},
		{"provider alone", client.EarnProviderProtocolA, "", []string{"w-a-base", "w-a-eth"}},
		{"other provider", client.EarnProviderProtocolB, "", []string{"w-b-base"}},
		{"caip19 alone", "", baseUSDC, []string{"w-a-base", "w-b-base"}},
		{"both", client.EarnProviderProtocolB, baseUSDC, []string{"w-b-base"}},
		{"both, no match", client.EarnProviderProtocolB, ethUSDC, []string{}},
		{"caip19 matches exactly", "", "eip155:8453/erc20:0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913", []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := e.client.ListEarnEnabledVaults(t.Context(), client.ListEarnEnabledVaultsRequest{Provider: c.provider, Caip19: c.caip19})
			if err != nil || !reflect.DeepEqual(vaultWrappers(got.EnabledVaults), c.want) {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
	a := e.query(t, "list_earn_enabled_vaults", fmt.Sprintf(`{"organizationId":%q,"caip19":%q}`, testOrg, "eip155:10/erc20:0x0b2c639c533813f4aa9d7837caf62653d097ff85"))
	if a.Status != http.StatusOK || string(a.Raw) != `{"enabledVaults":[]}` {
		t.Fatalf("no match must answer an empty list: %d %s", a.Status, a.Raw)
	}
}

func TestListEarnEnabledVaultsRefusals(t *testing.T) {
	e := readonlyEmulator(t)
	for _, c := range []struct{ provider, caip19, want string }{
		{"EARN_PROVIDER_MORPHO", "", "field provider"},
		{"earn_provider_protocol_a", "", "field provider"},
		{"", "eip155:1", "field caip19"},
		{"", "USDC", "field caip19"},
		{"", "eip155:1/erc20", "field caip19"},
		{"", "eip155:1/erc20:", "field caip19"},
		{"", ":1/erc20:0xabc", "field caip19"},
		{"", "eip155:1/erc20:0xabc/extra", "field caip19"},
		{"", "eip155:1/erc20:0x abc", "field caip19"},
	} {
		_, err := e.client.ListEarnEnabledVaults(t.Context(), client.ListEarnEnabledVaultsRequest{Provider: c.provider, Caip19: c.caip19})
		wantAPIStatus(t, err, http.StatusBadRequest, c.want)
	}
	empty := newTestEmulator(t)
	a := empty.query(t, "list_earn_enabled_vaults", fmt.Sprintf(`{"organizationId":%q}`, testOrg))
	if a.Status != http.StatusOK || string(a.Raw) != `{"enabledVaults":[]}` {
		t.Fatalf("an organization without vaults: %d %s", a.Status, a.Raw)
	}
}

func TestEarnFeeFieldsHiddenFromSubOrganization(t *testing.T) {
	e := readonlyEmulator(t)
	parent, err := e.client.ListEarnEnabledVaults(t.Context(), client.ListEarnEnabledVaultsRequest{})
	if err != nil || !reflect.DeepEqual(parent.EnabledVaults, readonlyFixtures().EarnVaults) {
		t.Fatalf("the parent must see the vaults as seeded, fee fields included: %+v, %v", parent, err)
	}
	sub, err := e.client.WithOrganization(roSubOrg).ListEarnEnabledVaults(t.Context(), client.ListEarnEnabledVaultsRequest{Provider: client.EarnProviderProtocolA})
	if err != nil || !reflect.DeepEqual(vaultWrappers(sub.EnabledVaults), []string{"w-a-base", "w-a-eth"}) {
		t.Fatalf("sub-organization: %+v, %v", sub, err)
	}
	for _, v := range sub.EnabledVaults {
		if v.ClaimableClientFee != "" || v.ClaimableClientFeeDisplay != nil || v.ClientFeeWallet != "" || v.ApyPct != "0.05" {
			t.Fatalf("a sub-organization must get the vault without fee fields: %+v", v)
		}
	}
	a := e.query(t, "list_earn_enabled_vaults", fmt.Sprintf(`{"organizationId":%q}`, roSubOrg))
	for _, field := range []string{"claimableClientFee", "claimableClientFeeDisplay", "clientFeeWallet"} {
		if strings.Contains(string(a.Raw), field) {
			t.Fatalf("the sub-organization's answer holds %s: %s", field, a.Raw)
		}
	}
	// The state keeps the fee fields: hiding them is a view, not an edit.
	again, _ := e.client.ListEarnEnabledVaults(t.Context(), client.ListEarnEnabledVaultsRequest{})
	if again.EnabledVaults[0].ClientFeeWallet != "0xfee" {
		t.Fatalf("the parent lost the fee wallet after a sub-organization query: %+v", again.EnabledVaults[0])
	}
}

func TestListEarnPositions(t *testing.T) {
	e := readonlyEmulator(t)
	for _, wallet := range []string{roWallet, strings.ToLower(roWallet), "0x" + strings.ToUpper(roWallet[2:])} {
		got, err := e.client.ListEarnPositions(t.Context(), client.ListEarnPositionsRequest{WalletAddress: wallet})
		if err != nil || len(got.Positions) != 1 || got.Positions[0].CurrentValue != "42" {
			t.Fatalf("%s: %+v, %v", wallet, got, err)
		}
	}
	got, err := e.client.ListEarnPositions(t.Context(), client.ListEarnPositionsRequest{WalletAddress: roSolana})
	if err != nil || len(got.Positions) != 1 || got.Positions[0].CurrentValue != "7" {
		t.Fatalf("solana wallet: %+v, %v", got, err)
	}
	for _, wallet := range []string{strings.ToLower(roSolana), "0x0000000000000000000000000000000000000001"} {
		a := e.query(t, "list_earn_positions", fmt.Sprintf(`{"organizationId":%q,"walletAddress":%q}`, testOrg, wallet))
		if a.Status != http.StatusOK || string(a.Raw) != `{"positions":[]}` {
			t.Fatalf("%s has no positions: %d %s", wallet, a.Status, a.Raw)
		}
	}
}

func TestAppAndSendTransactionStatus(t *testing.T) {
	e := readonlyEmulator(t)
	app, err := e.client.GetAppStatus(t.Context(), client.GetAppStatusRequest{AppID: "app-1"})
	if err != nil || !reflect.DeepEqual(app.AppStatus, readonlyFixtures().AppStatuses[0]) {
		t.Fatalf("get_app_status = %+v, %v", app, err)
	}
	_, err = e.client.GetAppStatus(t.Context(), client.GetAppStatusRequest{AppID: "ghost-app"})
	wantAPIStatus(t, err, http.StatusNotFound, "app ghost-app not found")
	tx, err := e.client.GetSendTransactionStatus(t.Context(), client.GetSendTransactionStatusRequest{SendTransactionStatusID: "tx-1"})
	if err != nil || tx.TxStatus != "CONFIRMED" || tx.Eth == nil || tx.Eth.TxHash != "0xabc" {
		t.Fatalf("get_send_transaction_status = %+v, %v", tx, err)
	}
	_, err = e.client.GetSendTransactionStatus(t.Context(), client.GetSendTransactionStatusRequest{SendTransactionStatusID: "ghost-tx"})
	wantAPIStatus(t, err, http.StatusNotFound, "send-transaction status ghost-tx not found")
}

// TestReadOnlyQueriesOfSubOrganizations: the queries that are not modeled
// for sub-organizations are refused rather than answered with the
// parent's data.
func TestReadOnlyQueriesOfSubOrganizations(t *testing.T) {
	e := readonlyEmulator(t)
	sub := e.client.WithOrganization(roSubOrg)
	if _, err := sub.ListSupportedAssets(t.Context(), client.ListSupportedAssetsRequest{Caip2: "eip155:1"}); err != nil {
		t.Fatal(err)
	}
	if got, err := sub.ListEarnPositions(t.Context(), client.ListEarnPositionsRequest{WalletAddress: roWallet}); err != nil || len(got.Positions) != 1 {
		t.Fatalf("%+v, %v", got, err)
	}
	_, err := sub.GetAppStatus(t.Context(), client.GetAppStatusRequest{AppID: "app-1"})
	wantAPIStatus(t, err, http.StatusForbidden, "get_app_status on sub-organization")
}
