# Every policy the organization keeps: the policies this configuration
# manages, by reference, and the ones managed elsewhere, by id. Any other
# policy (one added through the dashboard, say) is planned for removal, and
# named in removals.
resource "custody_policy" "signing_quorum" {
  name      = "two approvals for signing"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'"
  consensus = "approvers.count() >= 2"
}

resource "custody_policy" "deny_exports" {
  name      = "Deny private key export"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"
}

resource "custody_policies_exclusive" "all" {
  policy_ids = [
    custody_policy.signing_quorum.id,
    custody_policy.deny_exports.id,
    # The break-glass policy, managed by the security team's configuration.
    "3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  ]
}
