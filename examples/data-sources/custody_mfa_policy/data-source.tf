# One MFA policy of a user, by id.
data "custody_mfa_policy" "transactions" {
  user_id       = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
  mfa_policy_id = "a1a0b213-8e5a-4268-a9b6-93fb46983f39"
}

# The authentication types of each step, in the order they must be met,
# e.g. [["AUTHENTICATION_TYPE_PASSKEY"], ["AUTHENTICATION_TYPE_EMAIL_OTP"]].
output "transaction_mfa_steps" {
  value = [
    for step in data.custody_mfa_policy.transactions.required_authentication_methods :
    [for method in step.any : method.type]
  ]
}
