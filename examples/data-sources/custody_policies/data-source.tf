# Every policy of the organization, in the service's order.
data "custody_policies" "all" {}

output "deny_policy_names" {
  value = [for p in data.custody_policies.all.policies : p.name if p.effect == "EFFECT_DENY"]
}

# Policies that apply to every activity (no condition).
output "unconditional_policy_ids" {
  value = [for p in data.custody_policies.all.policies : p.id if p.condition == null]
}
