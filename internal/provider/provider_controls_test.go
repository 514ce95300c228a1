package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccProviderControlsValidation: a control's activity types and
// at_most are checked at plan, a misspelt type with the closest one named.
func TestAccProviderControlsValidation(t *testing.T) {
	e := newAccEmulator(t)
	control := func(types, atMost string) string {
		return e.providerBlock(`controls = [{ name = "signing", activity_types = `+types+`, at_most = "`+atMost+`" }]`) +
			`data "custody_organization" "o" {}`
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: control(`["ACTIVITY_TYPE_SIGN_TRANSACTON_V2"]`, "consensus"),
			ExpectError: regexp.MustCompile(`"ACTIVITY_TYPE_SIGN_TRANSACTON_V2" is not an activity type of the service;\s+the\s+closest\s+is\s+ACTIVITY_TYPE_SIGN_TRANSACTION_V2`)},
		{Config: control(`["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]`, "never"), ExpectError: regexp.MustCompile(`value must be one of`)},
		{Config: control(`[]`, "denied"), ExpectError: regexp.MustCompile(`list must contain at least 1`)},
		{Config: control(`["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]`, "consensus")},
	}})
}
