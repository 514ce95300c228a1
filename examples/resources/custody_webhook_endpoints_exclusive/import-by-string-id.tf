# Import with the organization id the provider is configured for
# (Terraform 1.5 or later); any other id is refused.
import {
  to = custody_webhook_endpoints_exclusive.all
  id = "28be11af-5b8e-4c7d-9f0a-3c1d2e4f5a6b"
}
