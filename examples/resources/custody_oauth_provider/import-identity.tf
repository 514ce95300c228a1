# Import an OAuth provider by its identity (Terraform 1.12 or later, OpenTofu
# 1.12 or later): the user it belongs to and its id. organization_id defaults
# to the provider's. Configure it with issuer, subject and audience: the
# service never returns the token.
import {
  to = custody_oauth_provider.example
  identity = {
    user_id = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
    id      = "9a1e4c7b-3f5d-4b2a-8c6e-1d0f9b8a7c65"
  }
}
