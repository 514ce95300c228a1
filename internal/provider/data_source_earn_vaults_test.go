package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// earnVaultsTestSubOrg is the sub-organization of the example fixtures.
const earnVaultsTestSubOrg = "c310906f-a434-4337-9754-5d77604cf7c7"

const earnVaultsTestBaseUSDC = "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"

// earnVaultsTestFixtures are the vaults the example fixtures load.
func earnVaultsTestFixtures(t *testing.T) []client.EarnEnabledVault {
	t.Helper()
	f, err := emulator.LoadFixtures("../../examples/emulator/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.EarnVaults) != 4 {
		t.Fatalf("the example fixtures hold %d vaults; this test expects 4", len(f.EarnVaults))
	}
	return f.EarnVaults
}

// earnVaultsTestStr expects s, or null for the service's omitted "".
func earnVaultsTestStr(s string) knownvalue.Check {
	if s == "" {
		return knownvalue.Null()
	}
	return knownvalue.StringExact(s)
}

func earnVaultsTestDisplay(d *client.EarnValueDisplay) knownvalue.Check {
	if d == nil {
		return knownvalue.Null()
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{"usd": earnVaultsTestStr(d.USD), "crypto": earnVaultsTestStr(d.Crypto)})
}

// earnVaultsTestVault expects every attribute of v; a sub-organization
// (parent false) sees the fee fields null.
func earnVaultsTestVault(v client.EarnEnabledVault, parent bool) knownvalue.Check {
	fee, feeDisplay, feeWallet := earnVaultsTestStr(v.ClaimableClientFee), earnVaultsTestDisplay(v.ClaimableClientFeeDisplay), earnVaultsTestStr(v.ClientFeeWallet)
	if !parent {
		fee, feeDisplay, feeWallet = knownvalue.Null(), knownvalue.Null(), knownvalue.Null()
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"vault_address":                earnVaultsTestStr(v.VaultAddress),
		"wrapper_address":              earnVaultsTestStr(v.WrapperAddress),
		"provider":                     earnVaultsTestStr(v.Provider),
		"caip19":                       earnVaultsTestStr(v.Caip19),
		"apy_pct":                      earnVaultsTestStr(v.ApyPct),
		"net_apy_pct":                  earnVaultsTestStr(v.NetApyPct),
		"total_deposited":              earnVaultsTestStr(v.TotalDeposited),
		"display":                      earnVaultsTestDisplay(v.Display),
		"client_fee_bps":               earnVaultsTestStr(v.ClientFeeBps),
		"deposits_disabled":            knownvalue.Bool(*v.DepositsDisabled),
		"name":                         earnVaultsTestStr(v.Name),
		"curator":                      earnVaultsTestStr(v.Curator),
		"claimable_client_fee":         fee,
		"claimable_client_fee_display": feeDisplay,
		"client_fee_wallet":            feeWallet,
	})
}

func earnVaultsTestList(vaults []client.EarnEnabledVault, parent bool) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(vaults))
	for _, v := range vaults {
		checks = append(checks, earnVaultsTestVault(v, parent))
	}
	return knownvalue.ListExact(checks)
}

// earnVaultsTestSubConfig configures the provider for the fixtures'
// sub-organization with the parent's key (the emulator lets a parent's key
// act on its sub-organizations for these queries). It is a step of its own:
// the in-process test server is shared by every provider block of a
// configuration, so an aliased second block would overwrite the first one's
// configuration (and race with it).
func earnVaultsTestSubConfig(e *accEmulator) string {
	return e.providerBlockFor(earnVaultsTestSubOrg) + `
data "custody_earn_vaults" "sub" {}
`
}

func TestAccEarnVaultsDataSource_filtersAndSubOrganization(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	v := earnVaultsTestFixtures(t) // 0: A/Base, 1: B/Base, 2: A/Ethereum, 3: B/Ethereum
	check := func(name string, want knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.custody_earn_vaults."+name, tfjsonpath.New("vaults"), want)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: e.config(fmt.Sprintf(`
data "custody_earn_vaults" "all" {}

data "custody_earn_vaults" "protocol_a" {
  earn_provider = "EARN_PROVIDER_PROTOCOL_A"
}

data "custody_earn_vaults" "base_usdc" {
  caip19 = %[1]q
}

data "custody_earn_vaults" "both" {
  earn_provider = "EARN_PROVIDER_PROTOCOL_A"
  caip19        = %[1]q
}

data "custody_earn_vaults" "none" {
  earn_provider = "EARN_PROVIDER_PROTOCOL_B"
  caip19        = "eip155:137/erc20:0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"
}
`, earnVaultsTestBaseUSDC)),
			ConfigStateChecks: []statecheck.StateCheck{
				check("all", earnVaultsTestList(v, true)),
				// Spelled out once, so that a field mapped to the wrong
				// attribute cannot hide behind the fixture-driven checks.
				statecheck.ExpectKnownValue("data.custody_earn_vaults.all", tfjsonpath.New("vaults").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"vault_address":        knownvalue.StringExact("0x7c14cf487ac0f98beaf994a4089f54f2eb507bb0"),
					"wrapper_address":      knownvalue.StringExact("0xa0ba63c20a97fcfa881b2e1b46bce5f41e25102b"),
					"provider":             knownvalue.StringExact("EARN_PROVIDER_PROTOCOL_A"),
					"caip19":               knownvalue.StringExact(earnVaultsTestBaseUSDC),
					"apy_pct":              knownvalue.StringExact("0.0612"),
					"net_apy_pct":          knownvalue.StringExact("0.05508"),
					"total_deposited":      knownvalue.StringExact("2450000000000"),
					"display":              knownvalue.ObjectExact(map[string]knownvalue.Check{"usd": knownvalue.StringExact("2450000.00"), "crypto": knownvalue.StringExact("2450000.000000")}),
					"client_fee_bps":       knownvalue.StringExact("1000"),
					"deposits_disabled":    knownvalue.Bool(false),
					"name":                 knownvalue.StringExact("Prime USDC"),
					"curator":              knownvalue.StringExact("Curator One, Curator Two"),
					"claimable_client_fee": knownvalue.StringExact("1834250000"),
					"claimable_client_fee_display": knownvalue.ObjectExact(map[string]knownvalue.Check{
						"usd": knownvalue.StringExact("1834.25"), "crypto": knownvalue.StringExact("1834.250000")}),
					"client_fee_wallet": knownvalue.StringExact("0x68b5e87d188c06e39ffdb9cbf19de4420f4cced1"),
				})),
				// The second provider has no curators: null, not "".
				statecheck.ExpectKnownValue("data.custody_earn_vaults.all", tfjsonpath.New("vaults").AtSliceIndex(1).AtMapKey("curator"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.custody_earn_vaults.all", tfjsonpath.New("vaults").AtSliceIndex(2).AtMapKey("deposits_disabled"), knownvalue.Bool(true)),
				check("protocol_a", earnVaultsTestList([]client.EarnEnabledVault{v[0], v[2]}, true)),
				check("base_usdc", earnVaultsTestList([]client.EarnEnabledVault{v[0], v[1]}, true)),
				check("both", earnVaultsTestList([]client.EarnEnabledVault{v[0]}, true)),
				check("none", knownvalue.ListExact([]knownvalue.Check{})),
			},
		}, {
			Config: earnVaultsTestSubConfig(e),
			ConfigStateChecks: []statecheck.StateCheck{
				check("sub", earnVaultsTestList(v, false)),
				statecheck.ExpectKnownValue("data.custody_earn_vaults.sub", tfjsonpath.New("vaults").AtSliceIndex(0).AtMapKey("client_fee_wallet"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.custody_earn_vaults.sub", tfjsonpath.New("vaults").AtSliceIndex(0).AtMapKey("claimable_client_fee"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.custody_earn_vaults.sub", tfjsonpath.New("vaults").AtSliceIndex(0).AtMapKey("claimable_client_fee_display"), knownvalue.Null()),
			},
		}},
	})
}

func TestAccEarnVaultsDataSource_validation(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(e.config(`
data "custody_earn_vaults" "x" {
  earn_provider = "PROTOCOL_A"
}
`), regexp.MustCompile(`(?s)earn_provider.*must be one of.*EARN_PROVIDER_PROTOCOL_A.*EARN_PROVIDER_PROTOCOL_B.*got\s+"PROTOCOL_A"`)),
			// A chain id alone (CAIP-2) is not an asset id.
			planFails(e.config(`
data "custody_earn_vaults" "x" {
  caip19 = "eip155:8453"
}
`), regexp.MustCompile(`(?s)caip19.*must be a CAIP-19 asset id\s+<namespace>:<reference>/<asset_namespace>:<asset_reference>`)),
			planFails(e.config(`
data "custody_earn_vaults" "x" {
  earn_provider = "EARN_PROVIDER_PROTOCOL_B"
  caip19        = "eip155:8453/erc20"
}
`), regexp.MustCompile(`(?s)caip19.*must be a CAIP-19 asset id`)),
		},
	})
}
