# States the kit's controls as decisions: for each request a reviewer asks
# about (tests/decide/main.tf), what the policy set the apply made decides,
# computed by the provider's policy_decision function with the service's
# own decision order. It decides over the policies read back from the
# organization after the apply (data.custody_policies), so a policy made
# outside this configuration counts too, as it does for the service.

variables {
  terraform_runner_cidrs = ["127.0.0.1/32"]
  security_webhook_url   = "https://127.0.0.1:9/security-alerts"
}

run "apply" {}

run "decisions" {
  command = plan

  module {
    source = "./tests/decide"
  }

  variables {
    policies            = run.apply.organization_policies
    terraform_user_id   = run.apply.terraform_user_id
    cold_storage_tag_id = run.apply.managed.cold_storage_tag.id
  }

  assert {
    condition     = output.decisions.sign_with_one_approver.outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "One approver must not be able to sign alone."
  }

  assert {
    condition     = output.decisions.sign_with_two_approvers.outcome == "OUTCOME_ALLOW"
    error_message = "Two approvers must be able to sign."
  }

  assert {
    condition     = output.decisions.transfer_10_eth_alone.decided_by == tolist(["ETH transfers up to 10 ETH need one approver"])
    error_message = "A transfer of up to 10 ETH must be allowed to its requester alone."
  }

  assert {
    condition     = output.decisions.transfer_over_10_eth_alone.outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "A transfer over 10 ETH, by one wei, must wait for a second approver."
  }

  assert {
    condition     = output.decisions.token_transfer_alone.outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "A token transfer moves no ETH, yet must not pass as a small transfer: it waits for a second approver."
  }

  assert {
    condition     = output.decisions.transfer_over_10_eth_with_two.outcome == "OUTCOME_ALLOW"
    error_message = "A transfer over 10 ETH must be allowed once two people approve it."
  }

  assert {
    condition     = output.decisions.export_with_three.decided_by == tolist(["Deny private key export"])
    error_message = "Key export must be denied, by the export policy, even when three people approve it."
  }

  assert {
    condition     = output.decisions.sign_cold_storage_with_three.decided_by == tolist(["Cold storage is frozen"])
    error_message = "Signing with a key tagged cold-storage must be denied, however many approve."
  }

  assert {
    condition     = alltrue([for outcome in values(output.policy_changes_by_terraform) : outcome == "OUTCOME_ALLOW"])
    error_message = "The Terraform user must still be able to change policies by itself, or the next apply is denied."
  }
}
