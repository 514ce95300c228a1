# Import the claim on the policies of the organization the provider is
# configured for, by identity (Terraform 1.12 or later, OpenTofu 1.12 or
# later): organization_id defaults to the provider's, and any other is
# refused.
import {
  to       = custody_policies_exclusive.all
  identity = {}
}
