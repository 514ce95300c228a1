# Import a policy by its policy id (Terraform 1.5 or later).
import {
  to = custody_policy.example
  id = "5d0c7a57-2f6b-4f0e-9c39-0a7e4b9c1d21"
}
