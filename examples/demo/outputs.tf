output "organization" {
  description = "The organization id and its managed name."
  value = {
    id   = data.custody_organization.current.organization_id
    name = custody_organization_name.this.name
  }
}

output "terraform_user" {
  description = "The user that owns the provider's API key (whoami)."
  value = {
    id       = data.custody_organization.current.user_id
    username = data.custody_organization.current.username
  }
}

# scripts/demo.sh hands this id to tools/demo-drift, which renames the
# policy behind Terraform's back.
output "signing_policy_id" {
  description = "The id of the policy that requires two approvers for signing."
  value       = custody_policy.two_approvers_for_signing.id
}

output "policies" {
  description = "Every policy of the organization, name => effect."
  value       = { for p in data.custody_policies.all.policies : p.name => p.effect }
}

output "ip_allowlist_cidrs" {
  description = "The CIDR blocks of the organization-level IP allowlist."
  value       = sort([for r in custody_ip_allowlist.organization.rules : r.cidr])
}

output "oauth_provider_id" {
  description = "The id of the SSO provider registered for the Terraform user."
  value       = custody_oauth_provider.sso.id
}

output "hot_wallets_tag_id" {
  description = "The id of the hot-wallets private key tag."
  value       = custody_private_key_tag.hot_wallets.id
}

output "webhook_endpoint_id" {
  description = "The id of the webhook endpoint."
  value       = custody_webhook_endpoint.activity_feed.id
}

output "ethereum_stablecoins" {
  description = "Stablecoins supported on Ethereum mainnet, symbol => decimals."
  value       = { for a in data.custody_supported_assets.ethereum.assets : a.symbol => a.decimals if a.stable == true }
}

output "earn_vaults_open_for_deposits" {
  description = "Earn vaults open to deposits, by wrapper address (the deposit target), with their net APY."
  value = {
    for v in data.custody_earn_vaults.all.vaults :
    v.wrapper_address => {
      name    = v.name
      chain   = split("/", v.caip19)[0]
      net_apy = format("%.2f%%", tonumber(v.net_apy_pct) * 100)
    } if v.deposits_disabled != true
  }
}
