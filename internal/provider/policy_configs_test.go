package provider

import (
	"fmt"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// countedPolicies is count custody_policy resources under one label, alike
// but for the index each name ends with: the many policies that the tests
// of batches, faults, interrupts and the CLI apply.
type countedPolicies struct {
	label  string
	count  int
	name   string // followed by the index: "p" gives p0, p1, ...
	effect string
	// condition and notes are left out when empty.
	condition, notes string
}

// hcl is the configuration of the policies.
func (p countedPolicies) hcl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nresource \"custody_policy\" %q {\n  count     = %d\n  name      = \"%s${count.index}\"\n  effect    = %q\n",
		p.label, p.count, p.name, p.effect)
	writeOptionalAttr(&b, "condition", p.condition)
	writeOptionalAttr(&b, "notes", p.notes)
	b.WriteString("}\n")
	return b.String()
}

// writeOptionalAttr writes the string attribute name = value of a resource
// block, unless value is empty: left out, the attribute is null.
func writeOptionalAttr(b *strings.Builder, name, value string) {
	if value != "" {
		fmt.Fprintf(b, "  %s = %q\n", name, value)
	}
}

// signRawDenials are count policies denying sign_raw_payload, labelled p,
// with notes.
func signRawDenials(count int, name, notes string) string {
	return countedPolicies{label: "p", count: count, name: name, effect: client.EffectDeny,
		condition: "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD'", notes: notes}.hcl()
}
