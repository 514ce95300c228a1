# Every webhook endpoint the organization keeps: any other endpoint (one a
# script registered, say) is planned for removal, named in removals with its
# URL and subscriptions, and its deliveries stop.
resource "custody_webhook_endpoint" "ops" {
  name          = "operations events"
  url           = "https://hooks.example.com/custody"
  subscriptions = [{ event_type = "ACTIVITY_UPDATES" }]
}

resource "custody_webhook_endpoints_exclusive" "all" {
  endpoint_ids = [custody_webhook_endpoint.ops.id]
}
