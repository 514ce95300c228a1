# The controls under review: signing needs two approvers, and keys tagged
# cold-storage never sign.
resource "custody_private_key_tag" "cold_storage" {
  name            = "cold-storage"
  private_key_ids = []
}

resource "custody_policy" "controls" {
  for_each = {
    "Signing needs two approvers" = {
      effect    = "EFFECT_ALLOW"
      condition = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'"
      consensus = "approvers.count() >= 2"
    }
    "Cold storage is frozen" = {
      effect    = "EFFECT_DENY"
      condition = "activity.action == 'SIGN' && private_key.tags.contains('${custody_private_key_tag.cold_storage.id}')"
      consensus = null
    }
  }
  name      = each.key
  effect    = each.value.effect
  condition = each.value.condition
  consensus = each.value.consensus
}

# What do these policies decide when one person asks to sign with a key
# tagged cold-storage? The function answers offline, at plan time, with the
# engine the service's emulator uses: no request leaves Terraform.
locals {
  request = {
    type      = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
    approvers = [{ id = "alice-user-id", tags = ["treasury-tag-id"] }]
    params    = { encoding = "PAYLOAD_ENCODING_HEXADECIMAL", hash_function = "HASH_FUNCTION_NO_OP" }
    private_key = {
      id    = "key-id"
      tags  = [custody_private_key_tag.cold_storage.id]
      label = "vault"
    }
    # Needed only when a policy reads time.now (CronSpan, Timestamp).
    time = plantimestamp()
  }
}

output "cold_storage_signing" {
  # values() of a for_each resource, data.custody_policies.x.policies and
  # hand-written objects with an effect all serve as the policies argument.
  value = provider::custody::policy_decision(values(custody_policy.controls), local.request)
}

# A reviewer's question, as a check that runs at every plan and apply.
check "cold_storage_stays_frozen" {
  assert {
    condition     = provider::custody::policy_decision(values(custody_policy.controls), local.request).outcome == "OUTCOME_DENY_EXPLICIT"
    error_message = "Signing with a cold-storage key must be denied, whoever approves."
  }
}

# A transfer limit: one person may send up to 10 ETH; over it, two approve.
# Only a plain transfer (no calldata) counts as small: a token transfer or
# an approve() has a value of 0 and moves tokens, so it needs two as well.
# The request carries the transaction as the policies read it (eth.tx), its
# fields named as the policy language names them. Amounts are in wei: write
# them as decimal strings (or numbers), exact at any size.
locals {
  ten_eth = "10000000000000000000"

  transfer_limit = [
    {
      name      = "Plain transfers up to 10 ETH"
      effect    = "EFFECT_ALLOW"
      condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.data == '0x' && eth.tx.value <= ${local.ten_eth}"
      consensus = null
    },
    {
      name      = "Other transactions need two approvers"
      effect    = "EFFECT_ALLOW"
      condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && (eth.tx.data != '0x' || eth.tx.value > ${local.ten_eth})"
      consensus = "approvers.count() >= 2"
    },
  ]

  transfer_of_12_eth = {
    type      = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
    approvers = [{ id = "alice-user-id" }]
    # eth.tx goes with an Ethereum transaction: by the provider's catalogue,
    # a TRANSACTION_TYPE_SOLANA request carries solana.tx instead.
    params = { type = "TRANSACTION_TYPE_ETHEREUM" }
    eth = {
      tx = {
        type     = "TYPE_2"
        chain_id = 1
        to       = "0x1111111111111111111111111111111111111111"
        value    = "12000000000000000000" # 12 ETH
        data     = "0x"
      }
    }
  }
}

check "large_transfers_need_two_approvers" {
  assert {
    condition     = provider::custody::policy_decision(local.transfer_limit, local.transfer_of_12_eth).outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "A transfer over 10 ETH must wait for a second approver."
  }
  assert {
    condition = provider::custody::policy_decision(local.transfer_limit, merge(local.transfer_of_12_eth, {
      approvers = [{ id = "alice-user-id" }, { id = "bob-user-id" }]
    })).outcome == "OUTCOME_ALLOW"
    error_message = "A transfer over 10 ETH must be allowed once two people approve it."
  }
  assert {
    condition = provider::custody::policy_decision(local.transfer_limit, merge(local.transfer_of_12_eth, {
      eth = { tx = merge(local.transfer_of_12_eth.eth.tx, { value = "2000000000000000000" }) } # 2 ETH
    })).outcome == "OUTCOME_ALLOW"
    error_message = "A transfer of up to 10 ETH must be allowed to its requester alone."
  }
  assert {
    condition = provider::custody::policy_decision(local.transfer_limit, merge(local.transfer_of_12_eth, {
      eth = { tx = merge(local.transfer_of_12_eth.eth.tx, { value = "0", data = "0xa9059cbb${join("", [for _ in range(128) : "0"])}" }) } # a token transfer()
    })).outcome == "OUTCOME_REQUIRES_CONSENSUS"
    error_message = "A token transfer moves no ETH, yet must wait for a second approver."
  }
}
