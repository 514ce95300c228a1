output "terraform_user_id" {
  description = "The user that owns the API key Terraform runs with."
  value       = data.custody_organization.current.user_id
}

locals {
  # Every object this configuration manages, as one value.
  managed = {
    policies = {
      deny_key_export            = custody_policy.deny_key_export
      signing_quorum             = custody_policy.signing_quorum
      cold_storage_frozen        = custody_policy.cold_storage_frozen
      policies_through_terraform = custody_policy.policies_through_terraform
    }
    cold_storage_tag = custody_private_key_tag.cold_storage
    ip_allowlist     = custody_ip_allowlist.organization
    security_webhook = custody_webhook_endpoint.security_alerts
  }
}

output "managed" {
  description = "Every object this configuration manages, in one value: a refresh or a plan must leave it as the apply stored it."
  value       = local.managed
}

output "policies" {
  description = "The policies this configuration manages, by resource name."
  value       = local.managed.policies
}

output "cold_storage_tag" {
  description = "The cold-storage private key tag."
  value       = local.managed.cold_storage_tag
}

output "ip_allowlist" {
  description = "The organization-level IP allowlist."
  value       = local.managed.ip_allowlist
}

output "security_webhook" {
  description = "The webhook endpoint that receives failed and rejected activities."
  value       = local.managed.security_webhook
}

output "organization_policies" {
  description = "Every policy of the organization, managed here or not, as the service decides with them."
  value       = data.custody_policies.organization.policies
}
