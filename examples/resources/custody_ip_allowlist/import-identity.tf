# The organization-level allowlist, by identity (Terraform 1.12 or later,
# OpenTofu 1.12 or later): no public_key, and organization_id defaults to the
# provider's. Import it before the first apply to keep its rules.
import {
  to       = custody_ip_allowlist.example
  identity = {}
}

# A key-level allowlist, by the API key's public key.
import {
  to = custody_ip_allowlist.backend
  identity = {
    public_key = "02adc15bd923a66c94644b210b1575ef14f33145ae6f2b90c92055148f42911916"
  }
}
