# Runtime status of a TVC app.
data "custody_app_status" "signer" {
  app_id = "1f867cf8-cde5-406f-b0ec-970e4c6b344c"
}

locals {
  serving = one([
    for d in data.custody_app_status.signer.deployments : d
    if d.deployment_id == data.custody_app_status.signer.targeted_deployment_id
  ])
}

# Whether the deployment serving traffic has all its replicas ready.
output "serving_deployment_healthy" {
  value = local.serving.ready_replicas == local.serving.desired_replicas
}
