# The organization-level allowlist (Terraform 1.5 or later). Import it before
# the first apply to keep its rules: creating the resource overwrites them.
import {
  to = custody_ip_allowlist.example
  id = "organization"
}

# A key-level allowlist, by the API key's public key.
import {
  to = custody_ip_allowlist.backend
  id = "02adc15bd923a66c94644b210b1575ef14f33145ae6f2b90c92055148f42911916"
}
