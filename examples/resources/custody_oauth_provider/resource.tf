# Register a provider from its claims: no token needed.
resource "custody_oauth_provider" "alice_google" {
  user_id       = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
  provider_name = "google"
  issuer        = "https://accounts.google.com"
  subject       = "110248495921238986420"
  audience      = "123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com"
}

# Register a provider from an OIDC token that is never stored in plan or
# state (Terraform 1.11 or later). Raise oidc_token_wo_version to register a
# new token. The variable must be ephemeral too: a plain variable's value is
# saved in a plan file (terraform plan -out), sensitive or not. Set it
# (TF_VAR_bob_oidc_token) for the plan and again for the apply.
variable "bob_oidc_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "custody_oauth_provider" "bob_auth0" {
  user_id               = "0b9f3c2e-7d41-4a6a-8f25-9e1c7b3d5a40"
  provider_name         = "auth0"
  oidc_token_wo         = var.bob_oidc_token
  oidc_token_wo_version = 1

  timeouts = {
    create = "30m"
    delete = "30m"
  }
}
