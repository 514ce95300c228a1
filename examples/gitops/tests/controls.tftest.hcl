# Applies the configuration to a custody service, normally the local
# emulator (the CUSTODY_* variables in the environment say which), checks
# the controls a security team relies on, and checks that a second plan
# would change nothing. `terraform test` destroys everything afterwards.

variables {
  # The emulator runs on this machine: this is the runner's address.
  terraform_runner_cidrs = ["127.0.0.1/32"]
  office_networks        = { "203.0.113.0/24" = "head office" }
  # Nothing listens there, so no alert leaves the machine.
  security_webhook_url = "https://127.0.0.1:9/security-alerts"
}

run "apply" {
  assert {
    condition     = output.managed.policies.deny_key_export.effect == "EFFECT_DENY"
    error_message = "Private key export must be denied."
  }
  assert {
    condition = (
      output.managed.policies.signing_quorum.effect == "EFFECT_ALLOW" &&
      output.managed.policies.signing_quorum.consensus == "approvers.count() >= 2"
    )
    error_message = "Signing must be allowed only with two approvers."
  }
  assert {
    condition = (
      output.managed.policies.small_transfers.effect == "EFFECT_ALLOW" &&
      strcontains(output.managed.policies.small_transfers.condition, "eth.tx.data == '0x' && eth.tx.value <= 10000000000000000000")
    )
    error_message = "Only ETH transfers of up to 10 ETH may be signed by one person."
  }
  assert {
    condition = (
      output.managed.policies.cold_storage_frozen.effect == "EFFECT_DENY" &&
      strcontains(output.managed.policies.cold_storage_frozen.condition, output.managed.cold_storage_tag.id)
    )
    error_message = "Signing with a key tagged cold-storage must be denied."
  }
  assert {
    condition = (
      output.managed.policies.policies_through_terraform.effect == "EFFECT_ALLOW" &&
      strcontains(output.managed.policies.policies_through_terraform.consensus, output.terraform_user_id)
    )
    error_message = "Policy changes must need the Terraform user's approval."
  }
  assert {
    condition     = output.managed.ip_allowlist.enabled && output.managed.ip_allowlist.on_evaluation_error == "DENY"
    error_message = "The IP allowlist must be enforced, and deny when an address cannot be evaluated."
  }
  assert {
    condition     = contains([for r in output.managed.ip_allowlist.rules : r.cidr], "127.0.0.1/32")
    error_message = "The IP allowlist must keep the runner's address, or Terraform locks itself out."
  }
  assert {
    condition = (
      output.managed.security_webhook.is_active &&
      [for s in output.managed.security_webhook.subscriptions : s.event_type] == ["ACTIVITY_UPDATES"]
    )
    error_message = "Activity updates must be delivered to the security webhook."
  }
}

# Refresh reads every object back from the service, through the allowlist
# the apply just enabled (the emulator enforces it, so this run also shows
# that the runner is not locked out). Nothing may differ from what the
# apply stored. The apply's output comes in as a variable: OpenTofu (1.12)
# reads run.<name> in a run's variables but not in its assertions.
run "refresh_finds_no_drift" {
  command = plan

  plan_options {
    mode = refresh-only
  }

  variables {
    applied = run.apply.managed
  }

  assert {
    condition     = output.managed == var.applied
    error_message = "Refresh read back something other than what the apply stored: a plan would not be empty."
  }
}

# A normal plan of the same configuration. A policy it would update has an
# unknown updated_at, and an object it would replace an unknown id; either
# makes this comparison fail ("Unknown condition value"). With the run
# above, this stands for "a second plan is empty".
run "second_plan_is_empty" {
  command = plan

  variables {
    applied = run.apply.managed
  }

  assert {
    condition     = output.managed == var.applied
    error_message = "The plan right after apply would change something."
  }
}
