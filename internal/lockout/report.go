package lockout

import (
	"fmt"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// How the lockout guard reports what it found, on the resource whose
// change tips the balance: which policies and activity types, the decision
// before and in the worst state, which changes make that state, that only
// the root quorum can undo it, and how to go on. It writes plain text
// (Finding); the provider turns each finding into a diagnostic.

// Severity says whether a finding stops the plan or the delete.
type Severity int

const (
	// Warning lets the change go on.
	Warning Severity = iota
	// Error refuses it.
	Error
)

// Finding is one thing the guard reports on the change it judged.
type Finding struct {
	Severity Severity
	Summary  string
	Detail   string
}

// lockoutSkipFix is how to go on when the lockout is intended.
const lockoutSkipFix = "If that is intended (the root quorum takes over policy changes, say), set skip_policy_lockout_check = true " +
	"in the provider block, or CUSTODY_SKIP_POLICY_LOCKOUT_CHECK=true: the plan then shows this as a warning."

// lockoutAnyOrder says why the guard judges a state no single order shows.
const lockoutAnyOrder = "Terraform may apply the planned policy changes in any order, and an apply that fails stops part way, " +
	"so the check judges every state an apply can pass through or stop in, not only the last one."

// lockoutMoveFix is how to move or replace a policy that lets Terraform
// act without passing through a state that locks it out.
const lockoutMoveFix = "To give a policy another address, declare a moved block (moved { from = custody_policy.old, to = custody_policy.new }) " +
	"instead of deleting it and creating it again. To replace a policy that lets Terraform act, apply twice: first create the new " +
	"policy, then remove the old one."

// lockoutReplaceFix is lockoutMoveFix at apply, for a replacement.
const lockoutReplaceFix = "The provider refused this delete before submitting it: nothing was deleted. A delete the plan did not " +
	"show is part of a replacement (-replace, a tainted resource, or an unresolved-create-... placeholder id): Terraform plans it " +
	"as a create only, and applies it as this delete and then the create, which the state above would deny.\n\n" +
	"To replace a policy that lets Terraform act, give the resource lifecycle { create_before_destroy = true }, so that the new " +
	"policy exists before the old one is deleted, or apply twice: first create the new policy under another address, then " +
	"remove the old one. To keep a tainted policy as it is, run terraform untaint on it. To give a policy another address, " +
	"declare a moved block."

// unknownChangeText is the warning on a change whose content the plan
// cannot know.
func unknownChangeText(c Change) string {
	return upperFirst(c.What) + ": its effect, condition, consensus or time is known only after apply, so the lockout check " +
		"cannot judge it in this plan. Terraform plans it again during the apply, with its values, and the check judges it " +
		"then, before it is submitted, with the policy changes the apply has started. This plan judged the other policy " +
		"changes as if this one were not made."
}

// reportLockout is what the guard found when it counted gc: an error for
// a lockout (a warning with skip_policy_lockout_check), a warning for
// changes that will only wait for consensus. atApply: gc is a delete that
// the apply is about to submit. g.mu is held.
func (g *Guard) reportLockout(b *guardBase, gc *guardChange, found []lockoutFinding, atApply bool) []Finding {
	var report []Finding
	var locked, consensus []lockoutFinding
	for _, f := range found {
		if f.consensusOnly {
			consensus = append(consensus, f)
		} else {
			locked = append(locked, f)
		}
	}
	user := fmt.Sprintf("the provider's own user, %s (%s)", b.who.Username, b.who.UserID)
	what := upperFirst(gc.What)
	if atApply {
		what += " now"
	}
	if len(locked) > 0 {
		detail := what + " would leave " + user + ", unable to change policies by itself:\n" + decisionLines(locked) +
			"\n\n" + lockoutAnyOrder + " " + b.stateText(locked) +
			"\n\nOnce there, the provider's policy changes of those types are denied, the one that would undo it included: " +
			"only the root quorum can undo it. (The user is decided as whoami names it, without tags, email or alias.)"
		switch {
		case atApply:
			detail += "\n\n" + lockoutReplaceFix
		case b.movesOrReplaces(locked):
			detail += "\n\n" + lockoutMoveFix
		}
		summary := "Policy change would lock Terraform out"
		if atApply {
			summary = "Policy delete would lock Terraform out"
		}
		switch {
		case g.skip && atApply:
			report = append(report, Finding{Warning, "Policy delete locks Terraform out (skip_policy_lockout_check)", detail +
				"\n\nskip_policy_lockout_check is set, so the apply goes on."})
		case g.skip:
			report = append(report, Finding{Warning, "Policy change locks Terraform out (skip_policy_lockout_check)", detail +
				"\n\nskip_policy_lockout_check is set, so the plan goes on."})
		case atApply:
			report = append(report, Finding{Error, summary, detail + "\n\n" + strings.Replace(lockoutSkipFix,
				"the plan then shows this as a warning", "the apply then deletes it with this as a warning", 1)})
		default:
			report = append(report, Finding{Error, summary, detail + "\n\n" + lockoutSkipFix})
		}
	}
	if len(consensus) > 0 {
		report = append(report, Finding{Warning, "Terraform's policy changes will wait for approval", what + " means that " + user +
			", can no longer change policies alone:\n" + decisionLines(consensus) + "\n\n" + lockoutAnyOrder + " " + b.stateText(consensus) +
			"\n\nLater policy changes will wait for those approvals, up to the resource's timeouts or the provider's approval_timeout."})
	}
	return report
}

// decisionLines is one line per activity type: the decision in the worst
// state, and before.
func decisionLines(found []lockoutFinding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "\n  - %s: %s (now %s)", f.gt.req.Type, describeDecision(f.after, f.afterNames), describeDecision(f.before, f.gt.baseNames))
	}
	return b.String()
}

// describeDecision is a verdict and what made it.
func describeDecision(d policyset.Decision, names []string) string {
	switch {
	case d.ByRootQuorum:
		return d.Verdict + ", by the root quorum"
	case d.Verdict == client.OutcomeDenyImplicit:
		return d.Verdict + ": no policy allows it"
	}
	quoted := make([]string, len(d.DecidedBy))
	for i, p := range d.DecidedBy {
		quoted[i] = fmt.Sprintf("%q", names[p])
	}
	return d.Verdict + ", by policy " + strings.Join(quoted, " and ")
}

// stateText names the worst state of the types found: the changes made in
// it, and the changes still to come that would allow more. When every
// change counted so far, made, leaves the user able to act, it says that
// only an intermediate state locks out. g.mu is held.
func (b *guardBase) stateText(found []lockoutFinding) string {
	var parts []string
	seen := map[string]bool{}
	finalFine := true
	for _, f := range found {
		finalFine = finalFine && !f.finalLocked
		s := b.stateOf(f.t)
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	text := "The state judged above is the one " + parts[0] + "."
	if len(parts) > 1 {
		text = "The states judged above are, by activity type in the order listed: " + strings.Join(parts, "; ") + "."
	}
	if finalFine && !found[0].consensusOnly {
		text += " The planned changes, all made, leave Terraform able to change policies: only this intermediate state locks it out."
	}
	return text
}

// stateOf is "after X and before Y": the changes whose after version is in
// the worst state of type t, and the changes not made in it whose after
// version would allow more.
func (b *guardBase) stateOf(t int) string {
	gt := b.types[t]
	var made, toCome []string
	for s, slot := range b.slots {
		for _, c := range slot.changes {
			switch {
			case c.done:
			case gt.worstBy[s] == c:
				made = append(made, c.What)
			case permissiveness(c.outcomes[t]) > permissiveness(gt.worst[s]):
				toCome = append(toCome, c.What)
			}
		}
	}
	var text []string
	if len(made) > 0 {
		text = append(text, "after "+listSome(made))
	}
	if len(toCome) > 0 {
		text = append(text, "before "+listSome(toCome))
	}
	if len(text) == 0 {
		return "the organization holds now"
	}
	return strings.Join(text, ", and ")
}

// movesOrReplaces says whether the worst state of a type found deletes a
// policy, or comes before a change that would allow more: then a moved
// block or two applies are the ways on.
func (b *guardBase) movesOrReplaces(found []lockoutFinding) bool {
	for _, f := range found {
		gt := b.types[f.t]
		for s, slot := range b.slots {
			for _, c := range slot.changes {
				if !c.done && ((gt.worstBy[s] == c && c.After == nil) || permissiveness(c.outcomes[f.t]) > permissiveness(gt.worst[s])) {
					return true
				}
			}
		}
	}
	return false
}

// listSome joins up to five names, and says how many more there are.
func listSome(names []string) string {
	const most = 5
	switch {
	case len(names) > most:
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	case len(names) > 1:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
