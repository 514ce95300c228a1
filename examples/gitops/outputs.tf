output "terraform_user_id" {
  description = "The user that owns the API key Terraform runs with."
  value       = data.custody_organization.current.user_id
}

output "managed" {
  description = "Every object this configuration manages, by kind and resource name; a refresh or a plan must leave it as the apply stored it."
  value = {
    policies = {
      deny_key_export            = custody_policy.deny_key_export
      signing_quorum             = custody_policy.signing_quorum
      small_transfers            = custody_policy.small_transfers
      cold_storage_frozen        = custody_policy.cold_storage_frozen
      policies_through_terraform = custody_policy.policies_through_terraform
    }
    cold_storage_tag = custody_private_key_tag.cold_storage
    ip_allowlist     = custody_ip_allowlist.organization
    security_webhook = custody_webhook_endpoint.security_alerts
    all_policies     = custody_policies_exclusive.all
  }
}

output "organization_policies" {
  description = "Every policy of the organization, managed here or not, as the service decides with them."
  value       = data.custody_policies.organization.policies
}

output "policies_managed_elsewhere" {
  description = "The policies custody_policies_exclusive keeps although this configuration does not manage them (var.policies_managed_elsewhere)."
  value       = var.policies_managed_elsewhere
}
