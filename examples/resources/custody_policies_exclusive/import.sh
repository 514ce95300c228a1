# Import with the organization id the provider is configured for; any other
# id is refused.
terraform import custody_policies_exclusive.all 28be11af-5b8e-4c7d-9f0a-3c1d2e4f5a6b
