# The requests tests/decisions.tftest.hcl asks about, decided by the
# provider's policy_decision function with the service's own decision order
# (provider::custody::policy_decision), over the policies the apply left in
# the organization. The test runs this module and asserts on its outputs.
#
# The function is called here, not in the test's assertions: OpenTofu
# 1.12.6 crashes on a provider function in a `tofu test` assertion (a nil
# pointer in evalContextProviderFunction), and both CLIs run it in a
# module.

terraform {
  required_providers {
    custody = {
      source = "custody-labs/custody"
    }
  }
}

variable "policies" {
  description = "Every policy of the organization (the kit's output organization_policies)."
  type        = any
}

variable "terraform_user_id" {
  description = "The user Terraform runs as (the kit's output terraform_user_id)."
  type        = string
}

variable "cold_storage_tag_id" {
  description = "The id of the kit's cold-storage private key tag."
  type        = string
}

locals {
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

  # Each request by the name the test asserts on.
  requests = {
    sign_with_one_approver = {
      type        = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      approvers   = [local.alice]
      private_key = local.key
    }
    sign_with_two_approvers = {
      type        = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      approvers   = [local.alice, local.bob]
      private_key = local.key
    }
    transfer_10_eth_alone = {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [local.alice]
      private_key = local.key
      eth         = { tx = local.transfer }
    }
    transfer_over_10_eth_alone = {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [local.alice]
      private_key = local.key
      eth         = { tx = merge(local.transfer, { value = "10000000000000000001" }) }
    }
    # transfer(0x2222…, 10^12) on a token contract: no ETH moves, tokens do.
    token_transfer_alone = {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [local.alice]
      private_key = local.key
      eth = { tx = merge(local.transfer, {
        to    = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
        value = "0"
        data  = "0xa9059cbb000000000000000000000000222222222222222222222222222222222222222200000000000000000000000000000000000000000000000000000000e8d4a51000"
      }) }
    }
    transfer_over_10_eth_with_two = {
      type        = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
      approvers   = [local.alice, local.bob]
      private_key = local.key
      eth         = { tx = merge(local.transfer, { value = "10000000000000000001" }) }
    }
    export_with_three = {
      type        = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"
      approvers   = [local.alice, local.bob, local.carol]
      private_key = local.key
    }
    sign_cold_storage_with_three = {
      type        = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      approvers   = [local.alice, local.bob, local.carol]
      private_key = merge(local.key, { tags = [var.cold_storage_tag_id] })
    }
  }

  # The policy changes the provider submits, each by the Terraform user
  # alone.
  policy_change_types = ["ACTIVITY_TYPE_CREATE_POLICIES", "ACTIVITY_TYPE_UPDATE_POLICY_V2", "ACTIVITY_TYPE_DELETE_POLICY", "ACTIVITY_TYPE_DELETE_POLICIES"]
}

output "decisions" {
  description = "Each request's decision (outcome, decided_by, ...), by the request's name."
  value       = { for name, request in local.requests : name => provider::custody::policy_decision(var.policies, request) }
}

output "policy_changes_by_terraform" {
  description = "The outcome of each policy change the Terraform user makes alone, by activity type."
  value = { for type in local.policy_change_types : type => provider::custody::policy_decision(var.policies, {
    type      = type
    approvers = [{ id = var.terraform_user_id }]
  }).outcome }
}
