# The organization-level allowlist is imported with the id "organization".
terraform import custody_ip_allowlist.example organization

# A key-level allowlist is imported with the API key's public key.
terraform import custody_ip_allowlist.backend 02adc15bd923a66c94644b210b1575ef14f33145ae6f2b90c92055148f42911916
