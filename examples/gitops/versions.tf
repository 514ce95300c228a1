terraform {
  required_version = ">= 1.11"

  required_providers {
    custody = {
      source  = "custody-labs/custody"
      version = "~> 0.1"
    }
  }

  # State lives in an S3 bucket with S3-native locking (Terraform >= 1.10),
  # so the pull-request plan, the apply on merge and the scheduled drift
  # check all see the same state. The bucket, key and region come from
  # `terraform init -backend-config=...` in the workflow. Use any other
  # backend you already run; `terraform test` ignores this block.
  backend "s3" {
    use_lockfile = true
  }
}

# Credentials come from the environment (CUSTODY_BASE_URL,
# CUSTODY_ORGANIZATION_ID, CUSTODY_API_PUBLIC_KEY, CUSTODY_API_PRIVATE_KEY):
# the repository's secrets in CI, the emulator's export lines locally.
provider "custody" {}
