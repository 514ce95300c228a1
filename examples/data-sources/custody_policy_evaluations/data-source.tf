variable "activity_id" {
  type = string
}

data "custody_policy_evaluations" "this" {
  activity_id = var.activity_id
}

# The policies that denied the activity, whichever vote they were
# evaluated for.
output "denying_policy_ids" {
  value = distinct(flatten([
    for e in data.custody_policy_evaluations.this.evaluations : [
      for p in e.policy_evaluations : p.policy_id
      if p.outcome == "OUTCOME_DENY_EXPLICIT" || p.outcome == "OUTCOME_DENY_IMPLICIT"
    ]
  ]))
}
