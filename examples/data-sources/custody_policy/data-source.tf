resource "custody_policy" "signing" {
  name      = "two approvals for signing"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
  consensus = "approvers.count() >= 2"
  notes     = "managed by Terraform"
}

# Read a policy by id, here one managed elsewhere in the configuration.
data "custody_policy" "signing" {
  id = custody_policy.signing.id
}

output "signing_policy" {
  value = {
    effect     = data.custody_policy.signing.effect
    consensus  = data.custody_policy.signing.consensus
    updated_at = data.custody_policy.signing.updated_at
  }
}
