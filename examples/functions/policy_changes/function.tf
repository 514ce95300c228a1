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

  # One row per region of requests whose decision changes, for every
  # request, widening first: { activity_type, activity_types, before, after,
  # region, proved, example, words }.
  changes = provider::custody::policy_changes([local.signing_today], [local.signing_proposed])
}

output "access_changes" {
  value = local.changes
}

# The rows can be asserted like any value. Here the one row covers every
# signing activity (SIGN_TRANSACTION_V2, SIGN_RAW_PAYLOAD_V2,
# ETH_SEND_TRANSACTION, ...): each waited for a second approver and is now
# allowed alone. A
# pipeline that must refuse new access would assert instead that no row has
# after == "OUTCOME_ALLOW". Each example is a request that
# provider::custody::policy_decision accepts as is, so a reviewer can
# replay it.
check "signing_alone" {
  assert {
    condition     = contains(flatten(local.changes[*].activity_types), "ACTIVITY_TYPE_SIGN_TRANSACTION_V2")
    error_message = "The proposed change should let one approver sign a transaction."
  }
  assert {
    condition = alltrue([
      for c in local.changes : c.before == "OUTCOME_REQUIRES_CONSENSUS" && c.after == "OUTCOME_ALLOW"
    ])
    error_message = "Every row should be allowed alone now: ${join("; ", [for c in local.changes : "${c.activity_type}: ${c.before} -> ${c.after}"])}"
  }
}
