# The id of an activity, e.g. from an error message of this provider or
# from the service's activity list.
variable "activity_id" {
  type = string
}

data "custody_activity" "this" {
  activity_id = var.activity_id
}

output "activity_status" {
  value = data.custody_activity.this.status
}

# Who approved the activity, by name.
output "approved_by" {
  value = [
    for v in data.custody_activity.this.votes : v.user_name
    if v.selection == "VOTE_SELECTION_APPROVED"
  ]
}

# The ids of the policies a create_policies activity created.
output "created_policy_ids" {
  value = try(jsondecode(data.custody_activity.this.result).createPoliciesResult.policyIds, [])
}

# Why the activity failed; null when it did not.
output "failure_message" {
  value = try(data.custody_activity.this.failure.message, null)
}
