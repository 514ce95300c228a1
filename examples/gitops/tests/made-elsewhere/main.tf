# Policies made outside the kit's configuration, as from the dashboard, for
# tests/drift.tftest.hcl; terraform test deletes them at the end. This
# module has no provider block, so no control judges what it makes, as
# none judges the dashboard.

terraform {
  required_providers {
    custody = {
      source = "custody-labs/custody"
    }
  }
}

variable "terraform_user_id" {
  description = "If set, also make a grant that lets this user update private key tags alone, as the README's grant lets the Terraform user."
  type        = string
  default     = null
}

variable "breaks_a_control" {
  description = "Whether to also make a policy that breaks the kit's control \"raw payloads never signed alone\"."
  type        = bool
  default     = false
}

# It lets anyone create a wallet: harmless to the kit's controls (see
# versions.tf).
resource "custody_policy" "made_elsewhere" {
  name      = "Made from the dashboard"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
}

# A part of the README's grant for the Terraform user: it lets the user
# update private key tags alone, which the kit's suite never does (so
# that with the emulator's -root-quorum 2, nothing the suite submits goes
# through by this grant instead of a second root's approval).
resource "custody_policy" "terraform_grant" {
  count     = var.terraform_user_id == null ? 0 : 1
  name      = "Terraform updates private key tags"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG'"
  consensus = "approvers.any(user, user.id == '${var.terraform_user_id}')"
}

# It lets anyone sign a raw payload alone: the kit's control "raw payloads
# never signed alone" forbids it.
resource "custody_policy" "signs_alone" {
  count     = var.breaks_a_control ? 1 : 0
  name      = "Anyone signs raw payloads alone"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
}

output "id" {
  description = "The harmless policy's id."
  value       = custody_policy.made_elsewhere.id
}

output "breaking_id" {
  description = "The id of the policy that breaks the control, or null."
  value       = one(custody_policy.signs_alone[*].id)
}
