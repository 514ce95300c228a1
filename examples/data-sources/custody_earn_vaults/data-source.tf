# The organization's earn vaults for USDC on Base, from the first lending
# protocol. Omit both filters to list every vault.
data "custody_earn_vaults" "base_usdc" {
  earn_provider = "EARN_PROVIDER_PROTOCOL_A"
  caip19        = "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
}

# Net yield in percent by wrapper (the deposit target), for vaults open to deposits.
output "base_usdc_net_apy_percent" {
  value = {
    for v in data.custody_earn_vaults.base_usdc.vaults :
    v.wrapper_address => tonumber(v.net_apy_pct) * 100 if v.deposits_disabled != true
  }
}

# Client fees ready to claim, in raw units of the asset. Null when the
# provider is configured with a sub-organization.
output "base_usdc_claimable_fees" {
  value = { for v in data.custody_earn_vaults.base_usdc.vaults : v.wrapper_address => v.claimable_client_fee }
}
