package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// earnPositionsTestPosition is one position of the example fixtures'
// wallet 0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a, spelled out.
func earnPositionsTestPosition(vault, wrapper, provider, current, deposited, withdrawn string,
	display [6]string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"vault_address":   knownvalue.StringExact(vault),
		"wrapper_address": knownvalue.StringExact(wrapper),
		"provider":        knownvalue.StringExact(provider),
		"caip19":          knownvalue.StringExact(earnVaultsTestBaseUSDC),
		"current_value":   knownvalue.StringExact(current),
		"total_deposited": knownvalue.StringExact(deposited),
		"total_withdrawn": knownvalue.StringExact(withdrawn),
		"display": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"current_value_usd":      knownvalue.StringExact(display[0]),
			"total_deposited_usd":    knownvalue.StringExact(display[1]),
			"total_withdrawn_usd":    knownvalue.StringExact(display[2]),
			"current_value_crypto":   knownvalue.StringExact(display[3]),
			"total_deposited_crypto": knownvalue.StringExact(display[4]),
			"total_withdrawn_crypto": knownvalue.StringExact(display[5]),
		}),
		"deposits_disabled": knownvalue.Bool(false),
	})
}

func TestAccEarnPositionsDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: e.config(`
data "custody_earn_positions" "treasury" {
  wallet_address = "0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a"
}

data "custody_earn_positions" "idle" {
  wallet_address = "0x000000000000000000000000000000000000dead"
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.custody_earn_positions.treasury", tfjsonpath.New("wallet_address"),
					knownvalue.StringExact("0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a")),
				statecheck.ExpectKnownValue("data.custody_earn_positions.treasury", tfjsonpath.New("positions"), knownvalue.ListExact([]knownvalue.Check{
					earnPositionsTestPosition("0x7c14cf487ac0f98beaf994a4089f54f2eb507bb0", "0xa0ba63c20a97fcfa881b2e1b46bce5f41e25102b",
						"EARN_PROVIDER_PROTOCOL_A", "25431870000", "25000000000", "0",
						[6]string{"25431.87", "25000.00", "0.00", "25431.870000", "25000.000000", "0.000000"}),
					earnPositionsTestPosition("0x20645fd5eaed0716104cc143509ed54dd6179aea", "0x2c3a96e01b110d36de19ab4e2dd892accd639eba",
						"EARN_PROVIDER_PROTOCOL_B", "10152340000", "15000000000", "5000000000",
						[6]string{"10152.34", "15000.00", "5000.00", "10152.340000", "15000.000000", "5000.000000"}),
				})),
				// A wallet without positions is an empty list, not null.
				statecheck.ExpectKnownValue("data.custody_earn_positions.idle", tfjsonpath.New("positions"), knownvalue.ListExact([]knownvalue.Check{})),
			},
		}},
	})
}

func TestAccEarnPositionsDataSource_validation(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(e.dataBlock("custody_earn_positions", "wallet_address", ""), regexp.MustCompile(`(?s)wallet_address.*must be a wallet address`)),
			planFails(e.dataBlock("custody_earn_positions", "wallet_address", "0xe07c a426"), regexp.MustCompile(`(?s)wallet_address.*must be a wallet address`)),
			planFails(e.dataBlock("custody_earn_positions"), regexp.MustCompile(`The argument "wallet_address" is required`)),
		},
	})
}
