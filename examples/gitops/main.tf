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
# The organization's policies, declared whole
# ---------------------------------------------------------------------------

# Every policy of the organization is one of the policies above or one
# listed in var.policies_managed_elsewhere; a policy added above goes into
# this list too. Any other (made from the dashboard, or left behind by an
# apply whose answer was lost) is drift: the plan names it in removals,
# with its access change, `terraform plan -detailed-exitcode` exits 2,
# which the scheduled drift job reports, and the apply removes it.
# Destroying this resource deletes no policy. The provider's controls
# (versions.tf) are judged here on the organization as the removals leave
# it.
resource "custody_policies_exclusive" "all" {
  policy_ids = local.policy_ids

  lifecycle {
    # The provider refuses a removal that would take away Terraform's own
    # policy changes. The grant the README has the root quorum make lets
    # the Terraform user manage the tag, the allowlist and the webhook as
    # well: removing it would leave Terraform unable to change or destroy
    # them.
    precondition {
      condition     = length(local.terraform_grants_removed) == 0
      error_message = "custody_policies_exclusive would remove ${join(", ", local.terraform_grants_removed)}, which lets the Terraform user act alone on what this configuration manages (${join(", ", local.terraform_activity_types)}). List its id in policies_managed_elsewhere (the POLICIES_MANAGED_ELSEWHERE variable, README.md)."
    }
  }
}

locals {
  policy_ids = concat(var.policies_managed_elsewhere, [
    custody_policy.deny_key_export.id,
    custody_policy.signing_quorum.id,
    custody_policy.small_transfers.id,
    custody_policy.cold_storage_frozen.id,
    custody_policy.policies_through_terraform.id,
  ])

  # What the Terraform user submits for the tag, the allowlist and the
  # webhook above (its policy changes are the provider's to guard).
  terraform_activity_types = [
    "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
    "ACTIVITY_TYPE_SET_IP_ALLOWLIST", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
    "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
  ]
  kept_policies = [for p in data.custody_policies.found.policies : p if contains(local.policy_ids, p.id)]
  # Each policy the removals take that alone lets the Terraform user do
  # one of those, which the policies kept do not.
  terraform_grants_removed = [
    for p in data.custody_policies.found.policies : "\"${p.name}\" (${p.id})"
    if !contains(local.policy_ids, p.id) && anytrue([
      for type in local.terraform_activity_types :
      provider::custody::policy_decision(concat(local.kept_policies, [p]), { type = type, approvers = [{ id = data.custody_organization.current.user_id }] }).outcome == "OUTCOME_ALLOW" &&
      provider::custody::policy_decision(local.kept_policies, { type = type, approvers = [{ id = data.custody_organization.current.user_id }] }).outcome != "OUTCOME_ALLOW"
    ])
  ]
}

# The organization's policies as the plan finds them.
data "custody_policies" "found" {}

# Every policy of the organization, read back once the apply has made the
# policies above and removed the others, so that
# tests/decisions.tftest.hcl decides with what the service holds.
data "custody_policies" "organization" {
  depends_on = [custody_policies_exclusive.all]
}
