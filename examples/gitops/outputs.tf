output "terraform_user_id" {
  description = "The user that owns the API key Terraform runs with."
  value       = data.custody_organization.current.user_id
}

output "policies" {
  description = "The policies this configuration manages, by resource name."
  value = {
    deny_key_export            = custody_policy.deny_key_export
    signing_quorum             = custody_policy.signing_quorum
    cold_storage_frozen        = custody_policy.cold_storage_frozen
    policies_through_terraform = custody_policy.policies_through_terraform
  }
}

output "cold_storage_tag" {
  description = "The cold-storage private key tag."
  value       = custody_private_key_tag.cold_storage
}

output "ip_allowlist" {
  description = "The organization-level IP allowlist."
  value       = custody_ip_allowlist.organization
}

output "security_webhook" {
  description = "The webhook endpoint that receives failed and rejected activities."
  value       = custody_webhook_endpoint.security_alerts
}

output "organization_policies" {
  description = "Every policy of the organization, managed here or not, as the service decides with them."
  value       = data.custody_policies.organization.policies
}
