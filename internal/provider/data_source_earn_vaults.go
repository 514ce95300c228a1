package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewEarnVaultsDataSource is the custody_earn_vaults data source.
func NewEarnVaultsDataSource() datasource.DataSource {
	return newDataSource("earn_vaults", earnVaultsSchema(), readEarnVaults)
}

// earnVaultsModel is the data source. The provider filter cannot be called
// `provider`: that is a meta-argument of every data block, which the
// framework refuses as a root attribute name.
type earnVaultsModel struct {
	EarnProvider types.String     `tfsdk:"earn_provider"`
	Caip19       types.String     `tfsdk:"caip19"`
	Vaults       []earnVaultModel `tfsdk:"vaults"`
}

// earnVaultRefModel is what a vault and a position both say of the vault
// and its wrapper.
type earnVaultRefModel struct {
	VaultAddress     types.String `tfsdk:"vault_address"`
	WrapperAddress   types.String `tfsdk:"wrapper_address"`
	Provider         types.String `tfsdk:"provider"`
	Caip19           types.String `tfsdk:"caip19"`
	DepositsDisabled types.Bool   `tfsdk:"deposits_disabled"`
}

// earnVaultRef converts those fields; every one is optional.
func earnVaultRef(r client.EarnVaultRef) earnVaultRefModel {
	return earnVaultRefModel{VaultAddress: optionalString(r.VaultAddress), WrapperAddress: optionalString(r.WrapperAddress),
		Provider: optionalString(r.Provider), Caip19: optionalString(r.Caip19), DepositsDisabled: optionalBool(r.DepositsDisabled)}
}

// earnVaultRefAttributes are the attributes of earnVaultRefModel; wrapper
// describes wrapper_address.
func earnVaultRefAttributes(wrapper string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"vault_address":   computedOmittable("Address of the underlying yield vault."),
		"wrapper_address": computedOmittable(wrapper),
		"provider":        computedOmittable("The lending protocol: `EARN_PROVIDER_PROTOCOL_A` or `EARN_PROVIDER_PROTOCOL_B`."),
		"caip19":          computedOmittable("CAIP-19 id of the underlying asset, e.g. `" + earnVaultsCaip19Example + "`."),
		"deposits_disabled": computedBool("Whether deposits into the wrapper " +
			"are disabled. Null when the service leaves it out."),
	}
}

// earnVaultModel is one item of vaults.
type earnVaultModel struct {
	earnVaultRefModel
	ApyPct                    types.String           `tfsdk:"apy_pct"`
	NetApyPct                 types.String           `tfsdk:"net_apy_pct"`
	TotalDeposited            types.String           `tfsdk:"total_deposited"`
	Display                   *earnValueDisplayModel `tfsdk:"display"`
	ClientFeeBps              types.String           `tfsdk:"client_fee_bps"`
	Name                      types.String           `tfsdk:"name"`
	Curator                   types.String           `tfsdk:"curator"`
	ClaimableClientFee        types.String           `tfsdk:"claimable_client_fee"`
	ClaimableClientFeeDisplay *earnValueDisplayModel `tfsdk:"claimable_client_fee_display"`
	ClientFeeWallet           types.String           `tfsdk:"client_fee_wallet"`
}

// earnValueDisplayModel is a display-only {usd, crypto} pair.
type earnValueDisplayModel struct {
	USD    types.String `tfsdk:"usd"`
	Crypto types.String `tfsdk:"crypto"`
}

// earnVaultsCaip19 is a CAIP-19 asset type with CAIP's character sets:
// namespace:reference/asset_namespace:asset_reference.
var earnVaultsCaip19 = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}$`)

const earnVaultsCaip19Example = "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"

// earnVaultsDisplayAttribute is a {usd, crypto} object; what it displays
// is said by desc.
func earnVaultsDisplayAttribute(desc string) schema.SingleNestedAttribute {
	return computedObject(desc, map[string]schema.Attribute{
		"usd": computedString("The value in US dollars, a decimal string for " +
			"display only; null when the service leaves it out."),
		"crypto": computedString("The amount in units of the asset " +
			"(normalized by its decimals), a decimal string for display only; null when the service leaves it out."),
	})
}

// earnVaultAttributes are the attributes of one vault.
func earnVaultAttributes() map[string]schema.Attribute {
	attrs := earnVaultRefAttributes("Address of the organization's deployed fee wrapper: the deposit target.")
	maps.Copy(attrs, map[string]schema.Attribute{
		"apy_pct":         computedOmittable("Gross yield before fees, as a decimal fraction in a string (`0.0612` is 6.12 %)."),
		"net_apy_pct":     computedOmittable("Yield net of fees, as a decimal fraction in a string."),
		"total_deposited": computedOmittable("Total value deposited in the wrapper, in raw on-chain units of the underlying asset (an integer in a string)."),
		"display":         earnVaultsDisplayAttribute("Display-only values of `total_deposited`; null when the service leaves it out."),
		"client_fee_bps":  computedOmittable("The client's fee on the yield, in basis points (an integer in a string; `1000` is 10 %)."),
		"name":            computedOmittable("The provider's name for the vault (the reserve symbol for `EARN_PROVIDER_PROTOCOL_B`)."),
		"curator":         computedOmittable("The vault's curators, comma-separated; null for providers without curators."),
		"claimable_client_fee": computedOmittable("The client fee that can be released now, in raw on-chain units of the underlying asset " +
			"(an integer in a string), excluding the service's own fee. Returned to a parent organization only: null when " +
			"the provider is configured with a sub-organization."),
		"claimable_client_fee_display": earnVaultsDisplayAttribute("Display-only values of `claimable_client_fee`; null " +
			"when the service leaves it out, as it does for a sub-organization."),
		"client_fee_wallet": computedOmittable("Address that receives the client fee payouts. Returned to a parent organization only: " +
			"null for a sub-organization."),
	})
	return attrs
}

func earnVaultsSchema() schema.Schema {
	providers := []string{client.EarnProviderProtocolA, client.EarnProviderProtocolB}
	return schema.Schema{
		MarkdownDescription: "The earn vaults enabled for the organization (`list_earn_enabled_vaults`): each deployed fee " +
			"wrapper with its underlying vault, yield and fees, in the service's order. The fee fields " +
			"`claimable_client_fee`, `claimable_client_fee_display` and `client_fee_wallet` are returned only when the " +
			"provider's `organization_id` is the parent organization; for a sub-organization they are null.",
		Attributes: map[string]schema.Attribute{
			"earn_provider": optionalArgument("Only the vaults of this lending protocol: `EARN_PROVIDER_PROTOCOL_A` or "+
				"`EARN_PROVIDER_PROTOCOL_B`. Omit it for every provider. (Named `earn_provider` because `provider` "+
				"is a meta-argument of every data block.)", oneOf(providers...)),
			"caip19": optionalArgument("Only the vaults whose underlying asset has this CAIP-19 id, "+
				"`<namespace>:<reference>/<asset_namespace>:<asset_reference>` such as `"+earnVaultsCaip19Example+
				"`; the chain is taken from the id. Omit it for every asset.", stringvalidator.RegexMatches(earnVaultsCaip19,
				"must be a CAIP-19 asset id <namespace>:<reference>/<asset_namespace>:<asset_reference>, such as "+earnVaultsCaip19Example)),
			"vaults": computedList("The matching vaults, in the service's order; empty when none matches.", earnVaultAttributes()),
		},
	}
}

// earnVaultsDisplay converts a display pair; absent is nil (null).
func earnVaultsDisplay(v *client.EarnValueDisplay) *earnValueDisplayModel {
	if v == nil {
		return nil
	}
	return &earnValueDisplayModel{USD: optionalString(v.USD), Crypto: optionalString(v.Crypto)}
}

// earnVaultsFlatten converts the service's vaults (no match is an empty
// list).
func earnVaultsFlatten(in []client.EarnEnabledVault) []earnVaultModel {
	return listOf(in, func(v client.EarnEnabledVault) earnVaultModel {
		return earnVaultModel{
			earnVaultRefModel:         earnVaultRef(v.EarnVaultRef),
			ApyPct:                    optionalString(v.ApyPct),
			NetApyPct:                 optionalString(v.NetApyPct),
			TotalDeposited:            optionalString(v.TotalDeposited),
			Display:                   earnVaultsDisplay(v.Display),
			ClientFeeBps:              optionalString(v.ClientFeeBps),
			Name:                      optionalString(v.Name),
			Curator:                   optionalString(v.Curator),
			ClaimableClientFee:        optionalString(v.ClaimableClientFee),
			ClaimableClientFeeDisplay: earnVaultsDisplay(v.ClaimableClientFeeDisplay),
			ClientFeeWallet:           optionalString(v.ClientFeeWallet),
		}
	})
}

func readEarnVaults(ctx context.Context, d *dataSourceBase, m *earnVaultsModel, diags *diag.Diagnostics) {
	q := client.ListEarnEnabledVaultsRequest{Provider: m.EarnProvider.ValueString(), Caip19: m.Caip19.ValueString()}
	out, err := d.pd.client.ListEarnEnabledVaults(ctx, q)
	if err != nil {
		addAPIError(diags, "Error reading earn vaults", client.QueryListEarnEnabledVaults, earnVaultsFilters(q), err)
		return
	}
	m.Vaults = earnVaultsFlatten(out.EnabledVaults)
}

// earnVaultsFilters names the filters in an error, so that a refused one
// can be recognized.
func earnVaultsFilters(q client.ListEarnEnabledVaultsRequest) string {
	var f []string
	if q.Provider != "" {
		f = append(f, "provider "+q.Provider)
	}
	if q.Caip19 != "" {
		f = append(f, "caip19 "+q.Caip19)
	}
	if len(f) == 0 {
		return ""
	}
	return fmt.Sprintf("vaults with %s", strings.Join(f, " and "))
}
