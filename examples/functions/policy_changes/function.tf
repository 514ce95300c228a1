# A proposed change: signing, which needs two approvers today, would need
# none. policy_changes tells what that does, offline, before any plan.
locals {
  signing_today = {
    name      = "Signing needs two approvers"
    effect    = "EFFECT_ALLOW"
    condition = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'"
    consensus = "approvers.count() >= 2"
  }
  signing_proposed = merge(local.signing_today, { consensus = null })

  # One row per sampled request whose decision changes, widening first:
  # { activity_type, before, after, example, words }. Here every signing
  # type goes from OUTCOME_REQUIRES_CONSENSUS to OUTCOME_ALLOW for one
  # approver alone.
  changes = provider::custody::policy_changes([local.signing_today], [local.signing_proposed])
}

output "access_changes" {
  value = local.changes
}

# The same rows can hold a pipeline to "no new access". Each example is a
# request that provider::custody::policy_decision accepts as is, so a
# reviewer can replay it.
check "no_new_access" {
  assert {
    condition     = length([for c in local.changes : c if c.after == "OUTCOME_ALLOW"]) == 0
    error_message = "The change lets requests through alone: ${join("; ", [for c in local.changes : "${c.activity_type}: ${c.words}" if c.after == "OUTCOME_ALLOW"])}"
  }
}
