# Signing with any private key needs two approvals.
resource "custody_policy" "signing_quorum" {
  name      = "two approvals for signing"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'"
  consensus = "approvers.count() >= 2"
  notes     = "Managed by Terraform."

  # Creating, changing or deleting a policy may itself need approvals by
  # other users: wait up to an hour for them instead of the provider's
  # approval_timeout.
  timeouts = {
    create = "1h"
    update = "1h"
    delete = "1h"
  }
}

# Deny every use of the keys tagged "cold-storage".
resource "custody_private_key_tag" "cold_storage" {
  name = "cold-storage"
}

resource "custody_policy" "cold_storage_frozen" {
  name      = "cold storage is frozen"
  effect    = "EFFECT_DENY"
  condition = "private_key.tags.contains('${custody_private_key_tag.cold_storage.id}')"
}
