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
#
# The controls are rules the organization is held to on every plan: a
# plan that would let a non-root user do more than at_most on one of the
# activity types fails with "Control broken: <name>" on the policy that
# does it (see README.md, "Controls"). A policy made outside Terraform
# that breaks one is judged by custody_policies_exclusive (main.tf), on
# the organization as its removals leave it: removed by the apply, it is
# a warning ("Control broken outside this configuration: <name>"); kept
# (listed in policies_managed_elsewhere), the control stays broken
# ("Control broken: <name>"), which the drift job reports as a broken
# control (README.md). Hence on_outside_breach = "warning" on each control:
# Terraform plans every custody_policy before the exclusive resource, and
# the first one planned sees the outside policy before the exclusive
# resource can plan its removal; it warns "Control broken: <name>"
# instead of failing the plan there.
provider "custody" {
  controls = [
    # Raw payloads, which can be anything (a transaction, a message, a
    # permit), are never signed by one person alone. Transactions
    # (ACTIVITY_TYPE_SIGN_TRANSACTION_V2) are not in this control on
    # purpose: the small_transfers policy in main.tf lets one person send
    # a plain ETH transfer of up to local.transfer_limit_eth, and
    # tests/decisions.tftest.hcl checks that a single wei more needs a
    # second approver. Without such a policy, add the type here.
    {
      name = "raw payloads never signed alone"
      activity_types = [
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
      ]
      at_most           = "consensus"
      on_outside_breach = "warning"
    },
    # Keys leave the service through no one, however many approve: only
    # the root quorum could. deny_key_export in main.tf denies private
    # key export; nothing allows a wallet's, and this control keeps it so.
    {
      name = "key export denied"
      activity_types = [
        "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
        "ACTIVITY_TYPE_EXPORT_WALLET",
        "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
      ]
      at_most           = "denied"
      on_outside_breach = "warning"
    },
  ]
}
