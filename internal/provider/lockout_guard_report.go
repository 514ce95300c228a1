package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// How the lockout guard reports what it found, on the resource whose
// change tips the balance: which policies and activity types, the decision
// before and after, that only the root quorum can undo it, and how to go on.

// lockoutSkipFix is how to go on when the lockout is intended.
const lockoutSkipFix = "If that is intended (the root quorum takes over policy changes, say), set skip_policy_lockout_check = true " +
	"in the provider block, or CUSTODY_SKIP_POLICY_LOCKOUT_CHECK=true: the plan then shows this as a warning."

// reportLockout adds what the guard found to diags: an error for a lockout
// (a warning with skip_policy_lockout_check), a warning for changes that
// will only wait for approvals. The change planned last, g.changes[last],
// is the one being planned. g.mu is held.
func (g *lockoutGuard) reportLockout(b *guardBase, last int, found []lockoutFinding, diags *diag.Diagnostics) {
	c := g.changes[last]
	var locked, waits []lockoutFinding
	for _, f := range found {
		if f.waitsOnly {
			waits = append(waits, f)
		} else {
			locked = append(locked, f)
		}
	}
	user := fmt.Sprintf("the provider's own user, %s (%s)", b.who.Username, b.who.UserID)
	together := g.together(last)
	if len(locked) > 0 {
		detail := upperFirst(c.what) + " would leave " + user + ", unable to change policies by itself:\n" + decisionLines(locked) + together +
			"\n\nOnce applied, every policy change this configuration submits is denied, the one that would undo it included: " +
			"only the root quorum can undo it. (The user is decided as whoami names it, without tags, email or alias.)"
		if g.skip {
			diags.AddWarning("Policy change locks Terraform out (skip_policy_lockout_check)", detail+
				"\n\nskip_policy_lockout_check is set, so the plan goes on.")
		} else {
			diags.AddError("Policy change would lock Terraform out", detail+"\n\n"+lockoutSkipFix)
		}
	}
	if len(waits) > 0 {
		diags.AddWarning("Terraform's policy changes will wait for approval", upperFirst(c.what)+" means that "+user+
			", can no longer change policies alone:\n"+decisionLines(waits)+together+"\n\nLater applies that change policies will "+
			"wait for those approvals, up to the resource's timeouts or the provider's approval_timeout.")
	}
}

// decisionLines is one line per activity type: the decision after the
// changes, and before.
func decisionLines(found []lockoutFinding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "\n  - %s: %s (now %s)", f.gt.req.Type, describeDecision(f.after, f.gt.names), describeDecision(f.before, f.gt.baseNames))
	}
	return b.String()
}

// describeDecision is an outcome and what made it.
func describeDecision(d policyset.Decision, names []string) string {
	switch {
	case d.ByRootQuorum:
		return d.Outcome + ", by the root quorum"
	case d.Outcome == client.OutcomeDenyImplicit:
		return d.Outcome + ": no policy allows it"
	}
	quoted := make([]string, len(d.DecidedBy))
	for i, p := range d.DecidedBy {
		quoted[i] = fmt.Sprintf("%q", names[p])
	}
	return d.Outcome + ", by policy " + strings.Join(quoted, " and ")
}

// together names the other changes taken into account, if any.
func (g *lockoutGuard) together(last int) string {
	var others []string
	for _, o := range g.changes[:last] {
		others = append(others, o.what)
	}
	if len(others) == 0 {
		return ""
	}
	return "\n\nThis takes together every policy change planned so far in this command; besides this one: " + strings.Join(others, "; ") + "."
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
