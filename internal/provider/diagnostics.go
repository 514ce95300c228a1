package provider

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// addAPIError reports a failed call with what a user needs to act: the
// operation, the object's id, the activity id and the service's code and
// message (all carried by the client's typed errors).
//
// A refusal because of an IP allowlist gets the recovery steps, whichever
// resource met it: once a key is locked out, every call it makes fails.
func addAPIError(diags *diag.Diagnostics, summary, operation, object string, err error) {
	err = ipAllowlistExplain(err)
	detail := operation
	if object != "" {
		detail += " for " + object
	}
	detail += " failed: " + err.Error()
	var apiErr *client.APIError
	var actErr *client.ActivityError
	switch {
	case errors.As(err, &actErr):
		detail += fmt.Sprintf("\n\nActivity: %s (%s)", actErr.ActivityID, actErr.Status)
		if actErr.Failure != nil {
			detail += fmt.Sprintf("\nService code %d: %s", actErr.Failure.Code, actErr.Failure.Message)
		}
	case errors.As(err, &apiErr):
		detail += fmt.Sprintf("\n\nHTTP %d, service code %d: %s", apiErr.HTTPStatus, apiErr.Code, apiErr.Message)
	}
	diags.AddError(summary, detail)
}
