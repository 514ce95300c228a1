# The key set is public: this data source works with a provider block that
# holds only base_url, without organization_id or an API key.
provider "custody" {
  base_url = "https://api.example.com"
}

data "custody_webhook_verification_keys" "this" {}

# A JWKS document to hand to the service that receives the webhooks; it
# matches each delivery's X-Service-Signature-Key-Id header to a kid.
output "webhook_jwks" {
  value = jsonencode({
    keys = [
      for k in data.custody_webhook_verification_keys.this.keys : {
        kid = k.kid
        kty = k.kty
        crv = k.crv
        alg = k.alg
        use = k.use
        x   = k.x
      }
    ]
  })
}
