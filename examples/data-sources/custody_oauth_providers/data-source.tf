# The OAuth providers of the user that owns the provider's API key.
data "custody_oauth_providers" "me" {}

# Another user's providers.
data "custody_oauth_providers" "alice" {
  user_id = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
}

output "alice_oauth_issuers" {
  value = { for p in data.custody_oauth_providers.alice.providers : p.provider_name => p.issuer }
}

output "my_oauth_provider_count" {
  value = length(data.custody_oauth_providers.me.providers)
}
