package review

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Findings on c.After (none for a delete, nor for a change that moves no
// decision field): it applies to no sampled request of any type; it is
// identical in effect, condition, consensus and time to another policy of
// the organization (named); it is an allow each sampled request of which
// another policy denies explicitly (shadowed; the deny named).
func (o *Org) Findings(c Change) []Finding {
	if c.After == nil || decisionEqual(c) {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p := *c.After
	self := func(q policyset.Policy) bool {
		return q.ID == p.ID || (c.Before != nil && q.ID == c.Before.ID)
	}
	var out []Finding
	for _, q := range o.sorted() {
		if !self(q) && sameDecision(p, q) {
			out = append(out, Finding{Kind: FindingDuplicate, Detail: fmt.Sprintf("  %q is identical in effect, condition, consensus and time to %q (%s).",
				name(p), name(q), q.ID)})
		}
	}
	holds, applicable, denied, denies := 0, 0, 0, map[string]bool{}
	types := o.typesOf(&p)
	requests := 0
	before := o.lookup(c.Before)
	for _, typ := range types {
		// The report's sample (both versions' values): built once for
		// the report, the findings and the controls of one change.
		v := o.sample(typ, before, &p)
		requests += v.len()
		// Only where p can count can its condition hold or p allow.
		for _, i := range o.movable(v, &p) {
			s := v.at(i)
			st := o.state(s)
			if st.ev.Outcome(policyset.Policy{Effect: client.EffectAllow, Condition: p.Condition}).Outcome == client.OutcomeAllow {
				holds++
			}
			if r := st.ev.Outcome(p).Outcome; p.Effect != client.EffectAllow || (r != client.OutcomeAllow && r != client.OutcomeRequiresConsensus) {
				continue
			}
			applicable++
			if deny := o.denier(st, self); deny != "" {
				denied++
				denies[deny] = true
			}
		}
	}
	if len(types) == 0 {
		out = append(out, Finding{Kind: FindingNeverApplies, Detail: fmt.Sprintf(
			"  %q can apply to no activity type that policies govern (or its expressions do not compile): it never applies.", name(p))})
	} else if holds == 0 && p.Condition != "" {
		out = append(out, Finding{Kind: FindingNeverApplies, Detail: fmt.Sprintf(
			"  The condition of %q holds for none of the %d requests sampled over %d activity types: it never applies.", name(p), requests, len(types))})
	}
	if applicable > 0 && denied == applicable {
		names := slices.Sorted(maps.Keys(denies))
		out = append(out, Finding{Kind: FindingShadowed, Detail: fmt.Sprintf(
			"  %q allows nothing: each of the %d sampled requests it allows is denied explicitly by %s.", name(p), applicable, strings.Join(names, ", "))})
	}
	return out
}

// denier names the first policy (by name) that denies the request
// explicitly, other than the changed one; "" when none does.
func (o *Org) denier(st *reqState, self func(policyset.Policy) bool) string {
	best := ""
	for _, i := range o.countable(st.req) {
		q := o.policies[i]
		if self(q) || q.Effect != client.EffectDeny {
			continue
		}
		if st.ev.Outcome(q).Outcome == client.OutcomeDenyExplicit {
			if n := fmt.Sprintf("%q", name(q)); best == "" || n < best {
				best = n
			}
		}
	}
	return best
}

// sorted are the organization's policies by id, for a stable order,
// sorted once per Org.
func (o *Org) sorted() []policyset.Policy {
	if o.byIDOrder == nil {
		o.byIDOrder = slices.Clone(o.policies)
		slices.SortFunc(o.byIDOrder, func(a, b policyset.Policy) int { return strings.Compare(a.ID, b.ID) })
	}
	return o.byIDOrder
}
