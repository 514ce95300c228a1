# Every OAuth provider the user keeps: any other provider of theirs (one
# registered outside Terraform, say) is planned for removal, named in
# removals with its issuer, subject and audience, and its tokens no longer
# sign the user in.
resource "custody_oauth_provider" "sso" {
  user_id       = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
  provider_name = "corporate-sso"
  issuer        = "https://sso.example.com"
  subject       = "ops-team"
  audience      = "custody"
}

resource "custody_oauth_providers_exclusive" "ops" {
  user_id      = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
  provider_ids = [custody_oauth_provider.sso.id]
}
