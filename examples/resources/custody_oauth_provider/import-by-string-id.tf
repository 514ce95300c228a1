# Import an OAuth provider with <user_id>/<provider_id> (Terraform 1.5 or
# later). Configure it with issuer, subject and audience: the service never
# returns the token.
import {
  to = custody_oauth_provider.example
  id = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82/9a1e4c7b-3f5d-4b2a-8c6e-1d0f9b8a7c65"
}
