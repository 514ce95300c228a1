# Import a private key tag by its tag id (Terraform 1.5 or later).
import {
  to = custody_private_key_tag.example
  id = "7c1b2a3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
}
