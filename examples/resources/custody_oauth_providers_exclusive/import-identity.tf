# Import by identity (Terraform 1.12 or later, OpenTofu 1.12 or later): the
# user whose providers the resource declares. organization_id defaults to
# the provider's.
import {
  to = custody_oauth_providers_exclusive.ops
  identity = {
    user_id = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
  }
}
