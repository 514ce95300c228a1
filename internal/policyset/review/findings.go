package review

import (
	"fmt"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// Findings on c.After (none for a delete, nor for a change that moves no
// decision field), each proved over every request: it never applies; it
// is identical in effect, condition, consensus and time to another policy
// (named); it is an allow that the organization's denies (named) deny
// wherever it would grant; removing it would change no verdict.
func (o *Org) Findings(c Change) []Finding {
	if c.After == nil || decisionEqual(c) {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p := *c.After
	if p.ID == "" && c.Before != nil {
		p.ID = c.Before.ID
	}
	self := func(q policyset.Policy) bool { return q.ID == p.ID || (c.Before != nil && q.ID == c.Before.ID) }
	// The findings' questions are about p: a policy that p's guards
	// exclude counts for nothing wherever p applies
	// (symbolic.SliceByGuards), so only those the guards admit are read.
	var others []policyset.Policy
	for _, q := range o.allIndex().Slice([]policyset.Policy{p}) {
		if !self(q) {
			others = append(others, q)
		}
	}
	var out []Finding
	for _, q := range o.sameDecisionAs(p) {
		if !self(q) {
			out = append(out, Finding{Kind: FindingDuplicate, Detail: fmt.Sprintf("  %q is identical in effect, condition, consensus and time to %q (%s).",
				name(p), name(q), q.ID)})
		}
	}
	// Each finding is a universal claim: a request that the engine
	// decides against it, one of the report's witnesses or the request p
	// was shown to apply to, disproves it without a question.
	var shown symbolic.Disproof
	disprove := func(w policyset.Request) {
		d := symbolic.DisproveAt(p, others, w)
		shown.Applies = shown.Applies || d.Applies
		shown.NotShadowed = shown.NotShadowed || d.NotShadowed
		shown.NotRedundant = shown.NotRedundant || d.NotRedundant
	}
	for _, w := range o.takeWitnesses(changeKey(o.lookup(c.Before), c.After)) {
		disprove(w)
	}
	if !shown.Applies {
		never, byCatalogue, applying := symbolic.NeverApplies(p, o.rootIDs, o.budget)
		if never {
			why := "for every request of every activity type, its outcome is not applicable, an error or time-inactive"
			if byCatalogue {
				why += ", by the catalogue: it reads a field the policy language's catalogue does not have, which every request " +
					"lacks (MissingField)"
			}
			out = append(out, Finding{Kind: FindingNeverApplies, Deny: p.Effect == client.EffectDeny,
				Detail: fmt.Sprintf("  %q never applies: %s.", name(p), why)})
			return out
		}
		if applying != nil {
			disprove(*applying)
		}
	}
	if !shown.NotShadowed {
		if shadowed, denies := symbolic.Shadowed(p, others, o.rootIDs, o.budget); shadowed {
			out = append(out, Finding{Kind: FindingShadowed, Detail: fmt.Sprintf(
				"  %q allows nothing: every request it would allow or wait for is denied explicitly by %s.", name(p), strings.Join(denies, ", "))})
			return out
		}
	}
	if !shown.NotRedundant && symbolic.Redundant(p, append(others, p), o.rootIDs, o.budget) {
		out = append(out, Finding{Kind: FindingRedundant, Detail: fmt.Sprintf(
			"  Removing %q would change no request's verdict: the organization's other policies already decide every request it "+
				"applies to as it does.", name(p))})
	}
	return out
}
