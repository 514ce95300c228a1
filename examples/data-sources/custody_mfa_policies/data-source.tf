# Every MFA policy of a user.
data "custody_mfa_policies" "alice" {
  user_id = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
}

# Policy names by evaluation order.
output "alice_mfa_policies" {
  value = {
    for p in data.custody_mfa_policies.alice.mfa_policies : tostring(p.order) => p.name
  }
}

# Warn (a check does not stop the run) when a policy requires no step at all.
check "every_mfa_policy_has_a_step" {
  assert {
    condition     = alltrue([for p in data.custody_mfa_policies.alice.mfa_policies : length(p.required_authentication_methods) > 0])
    error_message = "An MFA policy of alice requires no authentication step."
  }
}
