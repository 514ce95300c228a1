# What raising the payouts limit from 10 to 20 ETH would have done to the
# last 30 days of activities: the same figures a plan with the provider's
# `replay` setting shows under the change.
locals {
  payouts_before = {
    name      = "payouts up to 10 ETH"
    effect    = "EFFECT_ALLOW"
    condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 10000000000000000000"
  }
  payouts_after = merge(local.payouts_before, {
    name      = "payouts up to 20 ETH"
    condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 20000000000000000000"
  })
  officers = {
    name      = "two officers sign"
    effect    = "EFFECT_ALLOW"
    condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"
    consensus = "approvers.filter(u, u.tags.contains('officer')).count() >= 2"
  }
}

data "custody_policy_replay" "raise" {
  before = [local.payouts_before, local.officers]
  after  = [local.payouts_after, local.officers]
  days   = 30
}

output "newly_allowed" {
  value = [for m in data.custody_policy_replay.raise.moved : m.activity_id if m.after == "OUTCOME_ALLOW"]
}
