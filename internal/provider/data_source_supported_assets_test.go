package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const supportedAssetsTestAddr = "data.custody_supported_assets.test"

func supportedAssetsTestConfig(e *accEmulator, caip2 string) string {
	return e.dataBlock("custody_supported_assets", "caip2", caip2)
}

// supportedAssetsTestAsset is one expected asset, as in the emulator's
// table (internal/emulator/assets_table.go), whose logos are placeholders.
func supportedAssetsTestAsset(caip19, symbol, name string, decimals int64, stable bool) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"caip19":   knownvalue.StringExact(caip19),
		"symbol":   knownvalue.StringExact(symbol),
		"decimals": knownvalue.Int64Exact(decimals),
		"logo_url": knownvalue.StringExact("https://assets.emulator.invalid/" + symbol + ".png"),
		"name":     knownvalue.StringExact(name),
		"stable":   knownvalue.Bool(stable),
	})
}

func TestAccSupportedAssetsDataSource_basic(t *testing.T) {
	e := newAccEmulator(t)
	const solMainnet = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
	solanaAssets := knownvalue.ListExact([]knownvalue.Check{
		supportedAssetsTestAsset(solMainnet+"/slip44:501", "SOL", "Solana", 9, false),
		supportedAssetsTestAsset(solMainnet+"/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "USDC", "USD Coin", 6, true),
	})
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				// Ethereum mainnet: the native coin, then two stablecoins, in
				// the service's order.
				Config: supportedAssetsTestConfig(e, "eip155:1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(supportedAssetsTestAddr, tfjsonpath.New("caip2"), knownvalue.StringExact("eip155:1")),
					statecheck.ExpectKnownValue(supportedAssetsTestAddr, tfjsonpath.New("assets"), knownvalue.ListExact([]knownvalue.Check{
						supportedAssetsTestAsset("eip155:1/slip44:60", "ETH", "Ether", 18, false),
						supportedAssetsTestAsset("eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "USDC", "USD Coin", 6, true),
						supportedAssetsTestAsset("eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7", "USDT", "Tether USD", 6, true),
					})),
				},
			},
			{
				// The alias passes plan-time validation and is kept as
				// written, while the asset ids use the canonical chain id.
				Config: supportedAssetsTestConfig(e, "solana:mainnet"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(supportedAssetsTestAddr, tfjsonpath.New("caip2"), knownvalue.StringExact("solana:mainnet")),
					statecheck.ExpectKnownValue(supportedAssetsTestAddr, tfjsonpath.New("assets"), solanaAssets),
				},
			},
			{
				Config: supportedAssetsTestConfig(e, solMainnet),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(supportedAssetsTestAddr, tfjsonpath.New("assets"), solanaAssets),
				},
			},
			{
				Config: supportedAssetsTestConfig(e, "solana:devnet"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(supportedAssetsTestAddr, tfjsonpath.New("assets"), knownvalue.ListExact([]knownvalue.Check{
						supportedAssetsTestAsset("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/slip44:501", "SOL", "Solana", 9, false),
					})),
				},
			},
		},
	})
}

func TestAccSupportedAssetsDataSource_invalidCaip2(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			// Refused by plan-time validation (PlanOnly: nothing is read), with
			// the allowed values, aliases included, in the message.
			Config:   supportedAssetsTestConfig(e, "eip155:2"),
			PlanOnly: true,
			ExpectError: errorPhrases("caip2", "must be one of", `"eip155:1"`, `"eip155:421614"`,
				`"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"`, `"solana:mainnet"`, `"solana:devnet"`, `got "eip155:2"`),
		}},
	})
}

// TestSupportedAssetsFlatten covers what the emulator never sends: assets
// with fields left out (all are optional in spec 4.2.5) must become nulls,
// not "" / 0 / false, and a missing list must be empty, not null.
func TestSupportedAssetsFlatten(t *testing.T) {
	decimals, stable := 0, false
	got := supportedAssetsFlatten([]client.AssetMetadata{
		{Symbol: "X"},
		{Caip19: "eip155:1/slip44:60", Decimals: &decimals, Stable: &stable},
	})
	want := []supportedAssetModel{
		{Caip19: types.StringNull(), Symbol: types.StringValue("X"), Decimals: types.Int64Null(), LogoURL: types.StringNull(),
			Name: types.StringNull(), Stable: types.BoolNull()},
		// Zero values the service did send stay values.
		{Caip19: types.StringValue("eip155:1/slip44:60"), Symbol: types.StringNull(), Decimals: types.Int64Value(0),
			LogoURL: types.StringNull(), Name: types.StringNull(), Stable: types.BoolValue(false)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d assets, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("asset %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// The framework writes a nil slice as null, an empty one as [].
	if empty := supportedAssetsFlatten(nil); empty == nil || len(empty) != 0 {
		t.Errorf("no assets = %#v, want an empty list", empty)
	}
}
