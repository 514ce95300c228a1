# Import the claim on the webhook endpoints of the organization the provider
# is configured for, by identity (Terraform 1.12 or later, OpenTofu 1.12 or
# later): organization_id defaults to the provider's, and any other is
# refused.
import {
  to       = custody_webhook_endpoints_exclusive.all
  identity = {}
}
