package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// supportedAssetsChains are the caip2 values of spec 4.2.5, in its order:
// the canonical CAIP-2 ids, then the two Solana aliases the service
// normalizes (solana:mainnet, solana:devnet).
var supportedAssetsChains = []string{
	"eip155:1", "eip155:11155111", "eip155:8453", "eip155:84532", "eip155:137", "eip155:80002",
	"eip155:56", "eip155:97", "eip155:10", "eip155:11155420", "eip155:143", "eip155:10143",
	"eip155:42161", "eip155:4217", "eip155:42431", "eip155:421614",
	"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
	"solana:mainnet", "solana:devnet",
}

// NewSupportedAssetsDataSource is the custody_supported_assets data source.
func NewSupportedAssetsDataSource() datasource.DataSource {
	return newDataSource("supported_assets", supportedAssetsSchema(), readSupportedAssets)
}

type supportedAssetsDataSourceModel struct {
	Caip2  types.String          `tfsdk:"caip2"`
	Assets []supportedAssetModel `tfsdk:"assets"`
}

type supportedAssetModel struct {
	Caip19   types.String `tfsdk:"caip19"`
	Symbol   types.String `tfsdk:"symbol"`
	Decimals types.Int64  `tfsdk:"decimals"`
	LogoURL  types.String `tfsdk:"logo_url"`
	Name     types.String `tfsdk:"name"`
	Stable   types.Bool   `tfsdk:"stable"`
}

// supportedAssetAttributes are the attributes of one asset.
func supportedAssetAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"caip19": computedString("The CAIP-19 asset id, such as " +
			"`eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48`; null when the service leaves it out."),
		"symbol": computedString("The ticker symbol, such as `USDC`; null when the service leaves it out."),
		"decimals": computedInt64("The number of decimals: an amount in " +
			"raw on-chain units divided by 10^decimals is the amount in whole tokens. Null when the service leaves it out."),
		"logo_url": computedString("The URL of the asset's logo; null when the service leaves it out."),
		"name":     computedString("The asset's name; null when the service leaves it out."),
		"stable": computedBool("Whether the asset is on the service's " +
			"stablecoin list (used for stable-pair swap fee pricing); null when the service leaves it out."),
	}
}

func supportedAssetsSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The assets the service supports on one chain, with the metadata needed to display " +
			"amounts (symbol, decimals, logo).",
		Attributes: map[string]schema.Attribute{
			"caip2": requiredArgument("The chain, as a CAIP-2 id: `eip155:<chain id>` for EVM chains (`eip155:1`, "+
				"`eip155:11155111`, `eip155:8453`, `eip155:84532`, `eip155:137`, `eip155:80002`, `eip155:56`, "+
				"`eip155:97`, `eip155:10`, `eip155:11155420`, `eip155:143`, `eip155:10143`, `eip155:42161`, "+
				"`eip155:4217`, `eip155:42431`, `eip155:421614`), `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` "+
				"(Solana mainnet) or `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1` (devnet). The aliases "+
				"`solana:mainnet` and `solana:devnet` are accepted too; the asset ids then use the canonical id.",
				oneOf(supportedAssetsChains...)),
			"assets": computedList("The chain's assets, in the order the service returns them; an empty list when there are none.",
				supportedAssetAttributes()),
		},
	}
}

func readSupportedAssets(ctx context.Context, d *dataSourceBase, m *supportedAssetsDataSourceModel, diags *diag.Diagnostics) {
	out, err := d.pd.client.ListSupportedAssets(ctx, client.ListSupportedAssetsRequest{Caip2: m.Caip2.ValueString()})
	if err != nil {
		addAPIError(diags, "Error reading supported assets", client.QueryListSupportedAssets, "chain "+m.Caip2.ValueString(), err)
		return
	}
	m.Assets = supportedAssetsFlatten(out.Assets)
}

// supportedAssetsFlatten converts the service's assets; every field is
// optional there, so each omitted one becomes null. The service may leave
// the whole list out: that is an empty list (a nil slice would be null).
func supportedAssetsFlatten(assets []client.AssetMetadata) []supportedAssetModel {
	return listOf(assets, func(a client.AssetMetadata) supportedAssetModel {
		return supportedAssetModel{
			Caip19:   optionalString(a.Caip19),
			Symbol:   optionalString(a.Symbol),
			Decimals: optionalInt(a.Decimals),
			LogoURL:  optionalString(a.LogoURL),
			Name:     optionalString(a.Name),
			Stable:   optionalBool(a.Stable),
		}
	})
}
