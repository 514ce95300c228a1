# The scheduled drift job's check for policies that the configuration does
# not manage: silent while every policy is managed here or listed in
# policies_managed_elsewhere, failing once one is not.

variables {
  terraform_runner_cidrs = ["127.0.0.1/32"]
  security_webhook_url   = "https://127.0.0.1:9/security-alerts"
}

run "apply" {
  assert {
    condition     = length(local.unmanaged_policies) == 0
    error_message = "Right after the apply, every policy should be managed here or listed in policies_managed_elsewhere (as a non-root Terraform user: the grant that lets it act, README.md)."
  }
}

# Someone makes a policy outside this configuration.
run "a_policy_made_elsewhere" {
  module {
    source = "./tests/made-elsewhere"
  }
}

# The drift job's plan: the check fails (a warning in a plain plan) and
# names the policy. The made policy's id comes in as a variable: OpenTofu
# (1.12) reads run.<name> in a run's variables but not in its assertions.
run "is_reported" {
  command         = plan
  expect_failures = [check.every_policy_is_managed_here]

  variables {
    made_elsewhere = run.a_policy_made_elsewhere.id
  }

  assert {
    condition     = local.unmanaged_policies == ["\"Made from the dashboard\" (${var.made_elsewhere})"]
    error_message = "The drift check should name the policy made elsewhere, and only it."
  }
}

# Listing it silences the check. It is added to the policies listed
# already, such as the grant that lets a non-root Terraform user act
# (README.md): replacing the list would report those instead. The list
# comes from the apply's output: a run block cannot read a variable's
# default, only a value the suite is given (TF_VAR_..., -var).
run "unless_it_is_meant_to_live_elsewhere" {
  command = plan

  variables {
    policies_managed_elsewhere = concat(run.apply.policies_managed_elsewhere, [run.a_policy_made_elsewhere.id])
  }

  assert {
    condition     = length(local.unmanaged_policies) == 0
    error_message = "A policy listed in policies_managed_elsewhere is not drift."
  }
}
