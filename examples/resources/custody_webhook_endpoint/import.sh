# Import a webhook endpoint by its endpoint id.
terraform import custody_webhook_endpoint.example 4b6e8d0f-2a1c-4e3b-9d5f-7a8c0e2b4d6f
