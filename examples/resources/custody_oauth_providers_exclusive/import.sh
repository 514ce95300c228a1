# Import with the id of the user whose providers the resource declares.
terraform import custody_oauth_providers_exclusive.ops e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82
