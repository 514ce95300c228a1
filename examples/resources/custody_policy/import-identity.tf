# Import a policy by its identity (Terraform 1.12 or later, OpenTofu 1.12 or
# later). organization_id defaults to the provider's.
import {
  to = custody_policy.example
  identity = {
    id = "5d0c7a57-2f6b-4f0e-9c39-0a7e4b9c1d21"
  }
}
