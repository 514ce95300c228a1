# A policy made outside the kit's configuration, as from the dashboard, for
# tests/drift.tftest.hcl; terraform test deletes it at the end.

terraform {
  required_providers {
    custody = {
      source = "custody-labs/custody"
    }
  }
}

# It lets anyone create a wallet: harmless to the kit's controls (see
# versions.tf), which a policy allowing every wallet activity, exports
# included, would break.
resource "custody_policy" "made_elsewhere" {
  name      = "Made from the dashboard"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
}

output "id" {
  value = custody_policy.made_elsewhere.id
}
