# Status of a transaction the service sent.
data "custody_send_transaction_status" "payout" {
  send_transaction_status_id = "4b2b0a65-2daf-45b7-88ca-0d5a74a26400"
}

locals {
  tx = data.custody_send_transaction_status.payout
}

output "payout" {
  value = {
    status = local.tx.tx_status
    hash   = coalesce(local.tx.eth_tx_hash, local.tx.solana_signature, "not broadcast")
    # Outermost revert first; null when the transaction did not revert.
    reverts = local.tx.error == null ? null : [
      for r in coalesce(local.tx.error.revert_chain, []) : "${r.address}: ${r.display_message}"
    ]
  }
}
