package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewEarnPositionsDataSource is the custody_earn_positions data source.
func NewEarnPositionsDataSource() datasource.DataSource {
	return newDataSource("earn_positions", earnPositionsSchema(), readEarnPositions)
}

type earnPositionsModel struct {
	WalletAddress types.String        `tfsdk:"wallet_address"`
	Positions     []earnPositionModel `tfsdk:"positions"`
}

// earnPositionModel is one item of positions.
type earnPositionModel struct {
	earnVaultRefModel
	CurrentValue   types.String              `tfsdk:"current_value"`
	TotalDeposited types.String              `tfsdk:"total_deposited"`
	TotalWithdrawn types.String              `tfsdk:"total_withdrawn"`
	Display        *earnPositionDisplayModel `tfsdk:"display"`
}

// earnPositionDisplayModel holds the display-only values of a position.
type earnPositionDisplayModel struct {
	CurrentValueUSD      types.String `tfsdk:"current_value_usd"`
	TotalDepositedUSD    types.String `tfsdk:"total_deposited_usd"`
	TotalWithdrawnUSD    types.String `tfsdk:"total_withdrawn_usd"`
	CurrentValueCrypto   types.String `tfsdk:"current_value_crypto"`
	TotalDepositedCrypto types.String `tfsdk:"total_deposited_crypto"`
	TotalWithdrawnCrypto types.String `tfsdk:"total_withdrawn_crypto"`
}

// earnPositionsDisplayAttributes is the schema of display.
func earnPositionsDisplayAttributes() map[string]schema.Attribute {
	usd := func(of string) schema.StringAttribute {
		return computedString("`" + of + "` in US dollars, a decimal string " +
			"for display only; null when the service leaves it out.")
	}
	crypto := func(of string) schema.StringAttribute {
		return computedString("`" + of + "` in units of the asset (normalized " +
			"by its decimals), a decimal string for display only; null when the service leaves it out.")
	}
	return map[string]schema.Attribute{
		"current_value_usd":      usd("current_value"),
		"total_deposited_usd":    usd("total_deposited"),
		"total_withdrawn_usd":    usd("total_withdrawn"),
		"current_value_crypto":   crypto("current_value"),
		"total_deposited_crypto": crypto("total_deposited"),
		"total_withdrawn_crypto": crypto("total_withdrawn"),
	}
}

// earnPositionAttributes are the attributes of one position.
func earnPositionAttributes() map[string]schema.Attribute {
	attrs := earnVaultRefAttributes("Address of the fee wrapper the wallet deposited into.")
	maps.Copy(attrs, map[string]schema.Attribute{
		"current_value": computedOmittable("Current value of the position in raw on-chain units of the underlying asset (an integer in a " +
			"string), already net of the wrapper's fee."),
		"total_deposited": computedOmittable("Lifetime total deposited, in raw on-chain units of the underlying asset (an integer in a string)."),
		"total_withdrawn": computedOmittable("Lifetime total withdrawn, in raw on-chain units of the underlying asset (an integer in a string)."),
		"display": computedObject("Display-only values of the amounts; null when the service leaves it out.",
			earnPositionsDisplayAttributes()),
	})
	return attrs
}

// earnPositionsWallet refuses an address the service could never match.
var earnPositionsWallet = noSpaces("a wallet address, such as 0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a")

func earnPositionsSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The active earn positions of one wallet (`list_earn_positions`): for each vault it " +
			"deposited into, the current value and lifetime totals in raw on-chain units, in the service's order.",
		Attributes: map[string]schema.Attribute{
			"wallet_address": requiredArgument("The wallet whose positions to list, e.g. `0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a`. "+
				"The service compares `0x` addresses without regard to case.", earnPositionsWallet),
			"positions": computedList("The wallet's active positions, in the service's order; empty when it has none.",
				earnPositionAttributes()),
		},
	}
}

// earnPositionsFlatten converts the service's positions (a wallet without
// positions has an empty list).
func earnPositionsFlatten(in []client.EarnPosition) []earnPositionModel {
	return listOf(in, func(p client.EarnPosition) earnPositionModel {
		var display *earnPositionDisplayModel
		if v := p.Display; v != nil {
			display = &earnPositionDisplayModel{
				CurrentValueUSD:      optionalString(v.CurrentValueUSD),
				TotalDepositedUSD:    optionalString(v.TotalDepositedUSD),
				TotalWithdrawnUSD:    optionalString(v.TotalWithdrawnUSD),
				CurrentValueCrypto:   optionalString(v.CurrentValueCrypto),
				TotalDepositedCrypto: optionalString(v.TotalDepositedCrypto),
				TotalWithdrawnCrypto: optionalString(v.TotalWithdrawnCrypto),
			}
		}
		return earnPositionModel{
			earnVaultRefModel: earnVaultRef(p.EarnVaultRef),
			CurrentValue:      optionalString(p.CurrentValue),
			TotalDeposited:    optionalString(p.TotalDeposited),
			TotalWithdrawn:    optionalString(p.TotalWithdrawn),
			Display:           display,
		}
	})
}

func readEarnPositions(ctx context.Context, d *dataSourceBase, m *earnPositionsModel, diags *diag.Diagnostics) {
	wallet := m.WalletAddress.ValueString()
	out, err := d.pd.client.ListEarnPositions(ctx, client.ListEarnPositionsRequest{WalletAddress: wallet})
	if err != nil {
		addAPIError(diags, "Error reading earn positions", client.QueryListEarnPositions, "wallet "+wallet, err)
		return
	}
	m.Positions = earnPositionsFlatten(out.Positions)
}
