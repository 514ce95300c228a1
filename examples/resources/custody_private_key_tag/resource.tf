# Tag the keys held in cold storage; a policy can then refer to the tag id.
resource "custody_private_key_tag" "cold_storage" {
  name = "cold-storage"
  private_key_ids = [
    "3f2a9c1e-6b7d-4e8f-a0b1-c2d3e4f5a6b7",
    "8e7d6c5b-4a39-4281-9f0e-d1c2b3a4f5e6",
  ]
}

resource "custody_policy" "cold_storage_quorum" {
  name      = "cold storage needs three approvals"
  effect    = "EFFECT_ALLOW"
  condition = "private_key.tags.contains('${custody_private_key_tag.cold_storage.id}')"
  consensus = "approvers.count() >= 3"
}

# A tag on no keys yet.
resource "custody_private_key_tag" "hot_wallets" {
  name = "hot-wallets"
}
