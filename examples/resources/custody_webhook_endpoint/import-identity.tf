# Import a webhook endpoint by its identity (Terraform 1.12 or later, OpenTofu
# 1.12 or later). organization_id defaults to the provider's.
import {
  to = custody_webhook_endpoint.example
  identity = {
    id = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
  }
}
