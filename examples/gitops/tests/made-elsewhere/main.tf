# A policy made outside the kit's configuration, as from the dashboard, for
# tests/drift.tftest.hcl; terraform test deletes it at the end.

terraform {
  required_providers {
    custody = {
      source = "custody-labs/custody"
    }
  }
}

resource "custody_policy" "made_elsewhere" {
  name      = "Made from the dashboard"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET'"
}

output "id" {
  value = custody_policy.made_elsewhere.id
}
