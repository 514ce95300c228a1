# Import an OAuth provider with <user_id>/<provider_id>. The service never
# returns the token, so the configuration should set issuer, subject and
# audience rather than a token.
terraform import custody_oauth_provider.example e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82/9a1e4c7b-3f5d-4b2a-8c6e-1d0f9b8a7c65
