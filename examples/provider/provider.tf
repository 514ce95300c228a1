terraform {
  required_providers {
    custody = {
      source = "custody-labs/custody"
    }
  }
}

# Credentials are best left to the environment (CUSTODY_BASE_URL,
# CUSTODY_ORGANIZATION_ID, CUSTODY_API_PUBLIC_KEY, CUSTODY_API_PRIVATE_KEY),
# so that the API private key never appears in configuration or version
# control. An empty provider block then suffices:
#
#   provider "custody" {}
#
# Settings written in the block win over the environment.
provider "custody" {
  base_url        = "https://api.custody.example.com"
  organization_id = "28be11af-5b8e-4c7d-9f0a-3c1d2e4f5a6b"
  api_public_key  = var.custody_api_public_key

  # Secret: pass it in through an ephemeral variable (for example
  # TF_VAR_custody_api_private_key, for the plan and again for the apply),
  # or leave it out and set CUSTODY_API_PRIVATE_KEY. Either way it is saved
  # in no plan file and no state; a variable that is only sensitive would
  # be saved in clear in a plan file (terraform plan -out).
  api_private_key = var.custody_api_private_key

  # Optional tuning.
  max_retries      = 8     # retries of 429, 5xx, dropped connections and timeouts (default 5)
  approval_timeout = "45m" # wait for approvals by other users (default 20m)

  # The most requests per second this provider process sends (default: no
  # cap), so that Terraform leaves the organization's API quota to
  # production signing.
  max_requests_per_second = 5

  # Controls that every plan changing a custody_policy's effect, condition,
  # consensus or time is held to: a change that lets one person sign alone,
  # or anyone export a key, fails the plan on that resource (see the guide
  # "Reviewing policy changes").
  controls = [
    {
      name           = "Signing never alone"
      activity_types = ["ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"]
      at_most        = "consensus"
    },
    {
      name           = "Key export denied"
      activity_types = ["ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", "ACTIVITY_TYPE_EXPORT_WALLET"]
      at_most        = "denied"
    },
  ]
}

variable "custody_api_public_key" {
  description = "Public key of the API key Terraform uses: a compressed P-256 point in hex (66 characters)."
  type        = string
}

variable "custody_api_private_key" {
  description = "Private key of the API key Terraform uses (64 hex characters)."
  type        = string
  sensitive   = true
  ephemeral   = true # never stored in state or plan files
}
