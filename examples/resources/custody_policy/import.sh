# Import a policy by its policy id.
terraform import custody_policy.example 5d0c7a57-2f6b-4f0e-9c39-0a7e4b9c1d21
