# Import the claim on the private key tags of the organization the provider
# is configured for, by identity (Terraform 1.12 or later, OpenTofu 1.12 or
# later): organization_id defaults to the provider's, and any other is
# refused.
import {
  to       = custody_private_key_tags_exclusive.all
  identity = {}
}
