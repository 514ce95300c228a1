# The name of the organization the provider is configured for. Destroying
# this resource leaves the name as it is.
resource "custody_organization_name" "this" {
  name = "Acme Treasury"

  # A rename may need approvals by other users.
  timeouts = {
    create = "1h"
    update = "1h"
  }
}
