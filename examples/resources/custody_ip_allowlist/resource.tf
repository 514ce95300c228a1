# The organization-level allowlist: it applies to every API key without an
# allowlist of its own. It includes the address Terraform runs from, so that
# the provider's own key is not locked out.
resource "custody_ip_allowlist" "organization" {
  enabled             = true
  on_evaluation_error = "DENY"

  rules = [
    { cidr = "198.51.100.10/32", label = "terraform runner" },
    { cidr = "203.0.113.0/24", label = "office" },
    { cidr = "2001:db8:1200::/40", label = "office (IPv6)" },
  ]
}

# A key-level allowlist, always enforced for that one API key: the backend
# service's key may only be used from its own subnet.
resource "custody_ip_allowlist" "backend" {
  public_key = "02adc15bd923a66c94644b210b1575ef14f33145ae6f2b90c92055148f42911916"

  rules = [
    { cidr = "192.0.2.0/26", label = "backend subnet" },
  ]
}
