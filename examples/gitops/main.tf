# The custody controls of one organization, reviewed and applied from Git.
# See README.md for the pipeline around it (.github/workflows/custody.yml)
# and tests/ for what `terraform test` checks before any change is merged.

# The user that owns the API key Terraform runs with (whoami).
data "custody_organization" "current" {}

# ---------------------------------------------------------------------------
# Policies
# ---------------------------------------------------------------------------

# Private keys never leave the service, whoever asks.
resource "custody_policy" "deny_key_export" {
  name      = "Deny private key export"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"
  notes     = "Managed by Terraform (gitops kit)."
}

# Every signature needs var.signing_approvals approvers (four eyes), but for
# the small ETH transfers below.
resource "custody_policy" "signing_quorum" {
  name      = "Signing needs ${var.signing_approvals} approvers"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'"
  consensus = "approvers.count() >= ${var.signing_approvals}"
  notes     = "Managed by Terraform (gitops kit)."
}

# An ETH transfer of up to local.transfer_limit_eth needs only its
# requester; over it, signing_quorum above applies. eth.tx.value is in wei
# (1 ETH is 10^18 wei), a whole number the policy language compares
# exactly. Only a plain transfer (no calldata): a token transfer or an
# approve() moves tokens with a value of 0, and must not pass as small. A policy reading eth.tx errs on a request that carries no
# transaction (OUTCOME_ERROR), which never allows: this one allows nothing
# else.
resource "custody_policy" "small_transfers" {
  name      = "ETH transfers up to ${local.transfer_limit_eth} ETH need one approver"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.data == '0x' && eth.tx.value <= ${local.transfer_limit_eth}000000000000000000"
  notes     = "Managed by Terraform (gitops kit)."
}

locals {
  # Whole ETH: the condition appends the 18 zeros that make it wei.
  transfer_limit_eth = 10
}

# Keys tagged cold-storage do not sign at all.
resource "custody_policy" "cold_storage_frozen" {
  name      = "Cold storage is frozen"
  effect    = "EFFECT_DENY"
  condition = "activity.action == 'SIGN' && private_key.tags.contains('${custody_private_key_tag.cold_storage.id}')"
  notes     = "Managed by Terraform (gitops kit). Remove a key from the tag to move it out of cold storage."
}

# Policy changes need the Terraform user's approval: they go through review
# and this pipeline, not through the console.
resource "custody_policy" "policies_through_terraform" {
  name      = "Policy changes go through Terraform"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'POLICY'"
  consensus = "approvers.any(user, user.id == '${data.custody_organization.current.user_id}')"
  notes     = "Managed by Terraform (gitops kit)."
}

# ---------------------------------------------------------------------------
# Private key tag
# ---------------------------------------------------------------------------

# Keys are created elsewhere; list the ones that go to cold storage here.
resource "custody_private_key_tag" "cold_storage" {
  name            = "cold-storage"
  private_key_ids = []
}

# ---------------------------------------------------------------------------
# Organization-level IP allowlist
# ---------------------------------------------------------------------------

# Once enabled, the service refuses every request from an address outside
# the rules, Terraform's own included. The runners' addresses come first
# and cannot be left out (see var.terraform_runner_cidrs and README.md).
resource "custody_ip_allowlist" "organization" {
  enabled             = true
  on_evaluation_error = "DENY"
  rules = concat(
    [for cidr in var.terraform_runner_cidrs : { cidr = cidr, label = "Terraform runner" }],
    [for cidr, label in var.office_networks : { cidr = cidr, label = label }],
  )
}

# ---------------------------------------------------------------------------
# Webhook endpoint
# ---------------------------------------------------------------------------

# Failed and rejected activities go to the security team's alerting.
resource "custody_webhook_endpoint" "security_alerts" {
  url  = var.security_webhook_url
  name = "security alerts"
  subscriptions = [
    {
      event_type   = "ACTIVITY_UPDATES"
      filters_json = jsonencode({ status = ["ACTIVITY_STATUS_FAILED", "ACTIVITY_STATUS_REJECTED"] })
    },
  ]
}

# ---------------------------------------------------------------------------
# What the organization holds
# ---------------------------------------------------------------------------

# Every policy of the organization, read back after the policies above, so
# that tests/decisions.tftest.hcl decides with what the service holds.
data "custody_policies" "organization" {
  depends_on = [
    custody_policy.deny_key_export,
    custody_policy.signing_quorum,
    custody_policy.small_transfers,
    custody_policy.cold_storage_frozen,
    custody_policy.policies_through_terraform,
  ]
}

# Policies that exist in the organization but not in this configuration: one
# made from the dashboard, or one left behind by an apply whose answer was
# lost. A plan shows it as a warning ("Check block assertion failed"), which
# the scheduled drift job reports like any other drift.
check "every_policy_is_managed_here" {
  assert {
    condition     = length(local.unmanaged_policies) == 0
    error_message = "The organization holds policies this configuration does not manage: ${join("; ", local.unmanaged_policies)}. Import them (an import block) or delete them; list in policies_managed_elsewhere those that are managed elsewhere on purpose."
  }
}

locals {
  managed_policy_ids = concat(var.policies_managed_elsewhere, [
    custody_policy.deny_key_export.id,
    custody_policy.signing_quorum.id,
    custody_policy.small_transfers.id,
    custody_policy.cold_storage_frozen.id,
    custody_policy.policies_through_terraform.id,
  ])
  unmanaged_policies = [
    for p in data.custody_policies.organization.policies : "\"${p.name}\" (${p.id})" if !contains(local.managed_policy_ids, p.id)
  ]
}
