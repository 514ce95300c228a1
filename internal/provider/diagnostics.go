package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// addAPIError reports a failed call: its cause first, in the user's terms,
// then the service's message once, the activity or request id, the fix
// (which setting or variable to check), and last the context the cause
// met it in (see renderDiagnosis).
//
// A failed check of the provider's credentials is reported once, by
// Configure, on the provider's configuration, under a summary that names
// the configuration; no resource plans after it.
func addAPIError(diags *diag.Diagnostics, summary, operation, object string, err error) {
	d := client.Diagnose(err)
	if d.Identity != nil {
		summary = identitySummary(d)
	}
	diags.AddError(summary, renderDiagnosis(operation, object, d, client.NoteOf(err)))
}
