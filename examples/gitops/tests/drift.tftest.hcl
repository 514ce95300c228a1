# The scheduled drift job's view of policies this configuration does not
# manage: custody_policies_exclusive (main.tf) plans the removal of every
# policy of the organization that is neither managed here nor listed in
# policies_managed_elsewhere (terraform plan -detailed-exitcode exits 2),
# and judges the controls on the organization as its removals leave it.
#
# Each run that reads a run's output reads the latest run that applied
# that run's module: OpenTofu (1.12) no longer knows an earlier run's
# output once a later run has applied the same module again.

variables {
  terraform_runner_cidrs = ["127.0.0.1/32"]
  security_webhook_url   = "https://127.0.0.1:9/security-alerts"
}

run "apply" {
  assert {
    condition     = length(custody_policies_exclusive.all.removals) == 0
    error_message = "Right after the apply, every policy should be managed here or listed in policies_managed_elsewhere (as a non-root Terraform user: the grant that lets it act, README.md)."
  }
}

# Someone makes a policy outside this configuration.
run "a_policy_made_elsewhere" {
  module {
    source = "./tests/made-elsewhere"
  }
}

# The drift job's plan: the exclusive resource plans the policy's removal
# and names it, and it alone. The made policy's id comes in as a variable:
# OpenTofu (1.12) reads run.<name> in a run's variables but not in its
# assertions.
run "is_planned_for_removal" {
  command = plan

  variables {
    made_elsewhere = run.a_policy_made_elsewhere.id
  }

  assert {
    condition     = [for p in custody_policies_exclusive.all.removals : "\"${p.name}\" (${p.id})"] == ["\"Made from the dashboard\" (${var.made_elsewhere})"]
    error_message = "custody_policies_exclusive should plan the removal of the policy made elsewhere, and only it."
  }
}

# Listing it keeps it: no removal, no drift. It is added to the policies
# listed already, such as the grant that lets a non-root Terraform user
# act (README.md): replacing the list would plan their removal instead.
# The list comes from the apply's output: a run block cannot read a
# variable's default, only a value the suite is given (TF_VAR_..., -var).
run "unless_it_is_meant_to_live_elsewhere" {
  command = plan

  variables {
    policies_managed_elsewhere = concat(run.apply.policies_managed_elsewhere, [run.a_policy_made_elsewhere.id])
  }

  assert {
    condition     = length(custody_policies_exclusive.all.removals) == 0
    error_message = "A policy listed in policies_managed_elsewhere is not drift."
  }
}

# Someone then makes a policy that breaks one of the kit's controls: it
# lets anyone sign a raw payload alone ("raw payloads never signed alone",
# versions.tf).
run "a_policy_made_elsewhere_breaks_a_control" {
  module {
    source = "./tests/made-elsewhere"
  }

  variables {
    breaks_a_control = true
  }
}

# The drift job's plan: the control is broken now, and the exclusive
# resource plans the removal of the policy that breaks it, which mends the
# control (the warning "Control broken outside this configuration: raw
# payloads never signed alone"; the control's on_outside_breach =
# "warning" keeps the first policy planned from failing the plan before
# the exclusive resource plans the removal).
run "breaking_policy_is_planned_for_removal" {
  command = plan

  variables {
    policies_managed_elsewhere = concat(run.apply.policies_managed_elsewhere, [run.a_policy_made_elsewhere_breaks_a_control.id])
    breaking                   = run.a_policy_made_elsewhere_breaks_a_control.breaking_id
  }

  assert {
    condition     = [for p in custody_policies_exclusive.all.removals : p.id] == [var.breaking]
    error_message = "custody_policies_exclusive should plan the removal of the policy that breaks the control, and only it."
  }
}

# Applying main removes both policies made elsewhere, and the
# organization holds only the policies listed. This run's variables do
# not read run.apply: when an apply run's variables read an earlier run
# of the same configuration, OpenTofu (1.12.6) silently destroys nothing
# of it at the end of the file.
run "the_apply_removes_them" {
  assert {
    condition     = sort([for p in custody_policies_exclusive.all.removals : p.name]) == tolist(["Anyone signs raw payloads alone", "Made from the dashboard"])
    error_message = "The apply should remove the two policies made elsewhere."
  }

  assert {
    condition     = alltrue([for p in output.organization_policies : contains(custody_policies_exclusive.all.policy_ids, p.id)])
    error_message = "After the apply, the organization should hold only the policies listed in policy_ids."
  }
}

# And the control holds again: one person alone cannot sign a raw
# payload.
run "the_control_holds_again" {
  command = plan

  module {
    source = "./tests/decide"
  }

  variables {
    policies            = run.the_apply_removes_them.organization_policies
    terraform_user_id   = run.the_apply_removes_them.terraform_user_id
    cold_storage_tag_id = run.the_apply_removes_them.managed.cold_storage_tag.id
  }

  assert {
    condition     = output.decisions.sign_with_one_approver.outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "Once the apply has removed the policy made elsewhere, one approver must not be able to sign a raw payload alone."
  }
}

# The root quorum makes a grant for the Terraform user, a part of the
# README's (updating private key tags).
run "a_grant_for_terraform_made_elsewhere" {
  module {
    source = "./tests/made-elsewhere"
  }

  variables {
    terraform_user_id = run.the_apply_removes_them.terraform_user_id
  }
}

# Unlisted, the grant would be removed, and Terraform could no longer
# update the tag: main.tf's precondition refuses the plan. (Only the
# policy made from the dashboard is listed, so a non-root Terraform
# user's own grant is refused as well.)
run "the_grant_is_never_removed" {
  command = plan

  variables {
    policies_managed_elsewhere = [run.a_grant_for_terraform_made_elsewhere.id]
  }

  expect_failures = [custody_policies_exclusive.all]
}

# Not tested here: the same policy listed in policies_managed_elsewhere.
# The apply would keep it, so the control stays broken, which the
# exclusive resource reports as "Control broken: raw payloads never
# signed alone". terraform test (and tofu test) cannot expect a
# provider's diagnostic: expect_failures matches only the configuration's
# own conditions (variable validations, pre- and postconditions, check
# blocks, outputs), and answers "Missing expected failure" beside the
# provider's error. The drift job's reading of it is tested in the
# provider's repository (TestAccGitOpsKitDrift).
