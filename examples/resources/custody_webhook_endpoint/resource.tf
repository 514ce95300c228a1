resource "custody_webhook_endpoint" "ops" {
  name      = "operations events"
  url       = "https://hooks.example.com/custody"
  is_active = true

  # Any change of subscriptions replaces the endpoint (a new id).
  subscriptions = [
    { event_type = "ACTIVITY_UPDATES" },
    {
      event_type   = "SEND_TRANSACTION_STATUS_UPDATES"
      filters_json = jsonencode({ status = ["CONFIRMED", "FAILED"] })
    },
    {
      event_type = "BALANCE_FINALIZED_UPDATES"
      is_active  = false
    },
  ]

  timeouts = {
    create = "30m"
    update = "30m"
    delete = "30m"
  }
}

# Verify deliveries with the service's webhook key set.
data "custody_webhook_verification_keys" "current" {}
