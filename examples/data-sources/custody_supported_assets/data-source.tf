# Assets the service supports on Base. Solana also accepts the aliases
# "solana:mainnet" and "solana:devnet".
data "custody_supported_assets" "base" {
  caip2 = "eip155:8453"
}

locals {
  base_stablecoins = [for a in data.custody_supported_assets.base.assets : a if a.stable == true]
}

# Decimals turn raw on-chain amounts into whole tokens: amount / 10^decimals.
output "base_stablecoin_decimals" {
  value = { for a in local.base_stablecoins : a.symbol => a.decimals }
}
