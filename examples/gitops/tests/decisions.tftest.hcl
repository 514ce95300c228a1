# States the kit's controls as decisions: for each request a reviewer asks
# about, what the policy set the apply made decides, computed by the
# provider's policy_decision function with the service's own decision
# order (provider::custody::policy_decision). It reads the policies back
# from the organization (data.custody_policies), so a policy made outside
# this configuration counts too, as it does for the service.

variables {
  terraform_runner_cidrs = ["127.0.0.1/32"]
  security_webhook_url   = "https://127.0.0.1:9/security-alerts"
}

run "apply" {}

run "decisions" {
  command = plan

  variables {
    # People who approve, and a private key; none of them need to exist.
    alice = { id = "4f8c2d1e-0000-4000-8000-00000000a11c" }
    bob   = { id = "4f8c2d1e-0000-4000-8000-000000000b0b" }
    carol = { id = "4f8c2d1e-0000-4000-8000-00000000ca01" }
    key   = { id = "4f8c2d1e-0000-4000-8000-0000000000ee", tags = [] }
    # An ETH transfer as the policies read it (eth.tx); value is in wei,
    # written as a decimal string: 10 ETH, the kit's limit.
    transfer = {
      type     = "TYPE_2"
      chain_id = 1
      to       = "0x1111111111111111111111111111111111111111"
      value    = "10000000000000000000"
      data     = "0x"
    }
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      approvers   = [var.alice]
      private_key = var.key
    }).outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "One approver must not be able to sign alone."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      approvers   = [var.alice, var.bob]
      private_key = var.key
    }).outcome == "OUTCOME_ALLOW"
    error_message = "Two approvers must be able to sign."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [var.alice]
      private_key = var.key
      eth         = { tx = var.transfer }
    }).decided_by == tolist(["ETH transfers up to 10 ETH need one approver"])
    error_message = "A transfer of up to 10 ETH must be allowed to its requester alone."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [var.alice]
      private_key = var.key
      eth         = { tx = merge(var.transfer, { value = "10000000000000000001" }) }
    }).outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "A transfer over 10 ETH, by one wei, must wait for a second approver."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [var.alice]
      private_key = var.key
      # transfer(0x2222…, 10^12) on a token contract: no ETH moves, tokens do.
      eth = { tx = merge(var.transfer, {
        to    = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
        value = "0"
        data  = "0xa9059cbb000000000000000000000000222222222222222222222222222222222222222200000000000000000000000000000000000000000000000000000000e8d4a51000"
      }) }
    }).outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "A token transfer moves no ETH, yet must not pass as a small transfer: it waits for a second approver."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [var.alice, var.bob]
      private_key = var.key
      eth         = { tx = merge(var.transfer, { value = "10000000000000000001" }) }
    }).outcome == "OUTCOME_ALLOW"
    error_message = "A transfer over 10 ETH must be allowed once two people approve it."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"
      approvers   = [var.alice, var.bob, var.carol]
      private_key = var.key
    }).decided_by == tolist(["Deny private key export"])
    error_message = "Key export must be denied, by the export policy, even when three people approve it."
  }

  assert {
    condition = provider::custody::policy_decision(output.organization_policies, {
      type        = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      approvers   = [var.alice, var.bob, var.carol]
      private_key = merge(var.key, { tags = [output.managed.cold_storage_tag.id] })
    }).decided_by == tolist(["Cold storage is frozen"])
    error_message = "Signing with a key tagged cold-storage must be denied, however many approve."
  }

  assert {
    condition = alltrue([
      for type in ["ACTIVITY_TYPE_CREATE_POLICIES", "ACTIVITY_TYPE_UPDATE_POLICY_V2", "ACTIVITY_TYPE_DELETE_POLICY", "ACTIVITY_TYPE_DELETE_POLICIES"] :
      provider::custody::policy_decision(output.organization_policies, {
        type      = type
        approvers = [{ id = output.terraform_user_id }]
      }).outcome == "OUTCOME_ALLOW"
    ])
    error_message = "The Terraform user must still be able to change policies by itself, or the next apply is denied."
  }
}
