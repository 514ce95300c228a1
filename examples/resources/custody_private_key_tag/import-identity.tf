# Import a private key tag by its identity (Terraform 1.12 or later, OpenTofu
# 1.12 or later). organization_id defaults to the provider's.
import {
  to = custody_private_key_tag.example
  identity = {
    id = "3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
  }
}
