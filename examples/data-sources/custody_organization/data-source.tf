# Which organization and user the provider's API key acts as.
data "custody_organization" "current" {}

output "organization" {
  value = "${data.custody_organization.current.organization_name} (${data.custody_organization.current.organization_id})"
}

# Warn (a check does not stop the run) when the key belongs to an unexpected user.
check "expected_api_user" {
  assert {
    condition     = data.custody_organization.current.username == "terraform-ci"
    error_message = "The API key belongs to ${data.custody_organization.current.username}, not terraform-ci."
  }
}
