# Every private key tag the organization keeps: the tags this configuration
# manages, by reference, and one managed elsewhere, by id. Any other tag is
# planned for removal, and named in removals.
resource "custody_private_key_tag" "cold_storage" {
  name = "cold-storage"
}

resource "custody_private_key_tag" "hot_wallets" {
  name = "hot-wallets"
}

resource "custody_private_key_tags_exclusive" "all" {
  private_key_tag_ids = [
    custody_private_key_tag.cold_storage.id,
    custody_private_key_tag.hot_wallets.id,
    # The audit team's tag, managed by its own configuration.
    "7c1b2a3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  ]
}
