package provider

import (
	"errors"

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
	diags.AddError(summary, renderDiagnosis(operation, object, d, noteOf(err)))
}

// explainedError is a client error with a note only the provider can add,
// such as who rejected an activity; the client's typed error stays
// reachable.
type explainedError struct {
	err  error
	note string
}

func (e *explainedError) Error() string { return e.err.Error() + ". " + e.note }

func (e *explainedError) Unwrap() error { return e.err }

// noteOf is err's explainedError note, or "".
func noteOf(err error) string {
	var ex *explainedError
	if errors.As(err, &ex) {
		return ex.note
	}
	return ""
}
