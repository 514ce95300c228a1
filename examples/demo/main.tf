# A small but realistic custody organization, managed end to end by
# Terraform. scripts/demo.sh applies it against the local emulator
# (cmd/custody-emulator), checks that a second plan is empty, changes one
# policy behind Terraform's back (tools/demo-drift), checks that the drift
# shows up in the plan, and destroys everything.
#
# Credentials come from the environment (CUSTODY_BASE_URL,
# CUSTODY_ORGANIZATION_ID, CUSTODY_API_PUBLIC_KEY, CUSTODY_API_PRIVATE_KEY),
# as printed by the emulator, so the provider block stays empty.

terraform {
  required_version = ">= 1.11"

  required_providers {
    custody = {
      source = "custody-labs/custody"
    }
  }
}

# The organization's controls, judged on every plan: no single user may
# sign a transaction alone. A grant made outside Terraform that breaks it is
# removed by custody_policies_exclusive below, which the plan says
# ("Control broken outside this configuration"); on_outside_breach =
# "warning" lets the plan reach that resource (Terraform plans each
# custody_policy before it).
provider "custody" {
  controls = [
    {
      name              = "signing never alone"
      activity_types    = ["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]
      at_most           = "consensus"
      on_outside_breach = "warning"
    },
  ]
}

# ---------------------------------------------------------------------------
# Who we are: the organization and the user that owns the API key (whoami).
# ---------------------------------------------------------------------------

data "custody_organization" "current" {}

resource "custody_organization_name" "this" {
  name = var.organization_name
}

# ---------------------------------------------------------------------------
# Policies
# ---------------------------------------------------------------------------

# Keys never leave the service.
resource "custody_policy" "deny_key_export" {
  name      = "Deny private key export"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"
  notes     = "Private keys are never exported, whoever asks."
}

# Signing a transaction needs two approvers (four-eyes principle).
resource "custody_policy" "two_approvers_for_signing" {
  name      = "Two approvers for signing"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"
  consensus = "approvers.count() >= 2"
  notes     = "Four eyes on every transaction."
}

# Policy changes are allowed for the Terraform user (the API key's owner).
resource "custody_policy" "terraform_manages_policies" {
  name      = "Terraform manages policies"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'POLICY'"
  consensus = "approvers.any(user, user.id == '${data.custody_organization.current.user_id}')"
  notes     = "Policy changes go through code review and Terraform."
}

# The organization's policies, declared whole: a policy made beside this
# configuration (from the dashboard, say) is planned for removal, named
# with what it grants, and removed on apply.
resource "custody_policies_exclusive" "all" {
  policy_ids = [
    custody_policy.deny_key_export.id,
    custody_policy.two_approvers_for_signing.id,
    custody_policy.terraform_manages_policies.id,
  ]
}

# ---------------------------------------------------------------------------
# Organization-level IP allowlist
# ---------------------------------------------------------------------------

# Once enabled, the service refuses every request whose address is not in
# a rule: that includes Terraform's own requests. 127.0.0.0/8 is here so
# that the demo (Terraform and the emulator on this machine) does not lock
# itself out; on the real service, list the egress addresses of the
# machines that run Terraform instead, or it cannot even destroy the
# allowlist again.
resource "custody_ip_allowlist" "organization" {
  enabled             = true
  on_evaluation_error = "DENY"
  rules = concat(
    [{ cidr = "127.0.0.0/8", label = "this machine (Terraform and the emulator)" }],
    [for cidr, label in var.office_networks : { cidr = cidr, label = label }],
  )
}

# ---------------------------------------------------------------------------
# OAuth (OIDC) login for the Terraform user, registered from its claims, so
# no token is needed.
# ---------------------------------------------------------------------------

resource "custody_oauth_provider" "sso" {
  user_id       = data.custody_organization.current.user_id
  provider_name = "corporate-sso"
  issuer        = "https://sso.example.com"
  subject       = data.custody_organization.current.username
  audience      = "custody-console"
}

# ---------------------------------------------------------------------------
# Private key tag. There is no private key resource, so the tag starts
# empty; keys created elsewhere can be listed in private_key_ids.
# ---------------------------------------------------------------------------

resource "custody_private_key_tag" "hot_wallets" {
  name = "hot-wallets"
}

# ---------------------------------------------------------------------------
# Webhook endpoint. A loopback URL is only accepted by the emulator; the
# real service requires a public HTTPS URL. Nothing listens on port 9
# (discard), so deliveries simply fail.
# ---------------------------------------------------------------------------

resource "custody_webhook_endpoint" "activity_feed" {
  url  = "http://127.0.0.1:9/custody-events"
  name = "failed activities"
  subscriptions = [
    {
      event_type   = "ACTIVITY_UPDATES"
      filters_json = jsonencode({ status = ["ACTIVITY_STATUS_FAILED"] })
    },
  ]
}

# ---------------------------------------------------------------------------
# Read-only data
# ---------------------------------------------------------------------------

# Assets the service supports on Ethereum mainnet.
data "custody_supported_assets" "ethereum" {
  caip2 = "eip155:1"
}

# Every earn vault enabled for the organization (no filter).
data "custody_earn_vaults" "all" {}

# Every policy, as the service lists it. depends_on defers the read until
# the policies above exist and the exclusive resource has removed any
# other, so the apply already lists what it leaves (and a later plan reads
# the same list, so it stays empty).
data "custody_policies" "all" {
  depends_on = [
    custody_policy.deny_key_export,
    custody_policy.two_approvers_for_signing,
    custody_policy.terraform_manages_policies,
    custody_policies_exclusive.all,
  ]
}
