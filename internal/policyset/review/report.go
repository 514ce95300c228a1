package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Report: before = the organization; after = the organization with c (an
// update or delete finds its policy by c.Before.ID; a create adds
// c.After). A change of name or notes only, or one that moves no sampled
// decision, gives an empty Report (no rows, no notes), unless the changed
// policy reads what the sampler cannot vary: then the note names it.
//
// Each sampled request's tally over the organization is computed once per
// Org; the change takes its old version's outcome out and adds its new
// one, so a change costs the requests of the types it can touch.
func (o *Org) Report(c Change) Report {
	if decisionEqual(c) {
		return Report{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.lookup(c.Before)
	var r Report
	for _, typ := range o.typesOf(before, c.After) {
		r.Types++
		for _, s := range o.sample(typ, before, c.After) {
			r.Requests++
			st := o.state(s)
			t, was := o.baseTally(st)
			t.Add(outcome(st, before), -1)
			t.Add(outcome(st, c.After), 1)
			if now := policyset.DecideTally(t, s.req).Outcome; now != was {
				r.Rows = append(r.Rows, row(s, was, now))
			}
		}
	}
	// A policy that reads what the sampler cannot vary is named even when
	// no sampled decision moves: its effect there is unknown, never
	// silently passed over.
	r.Notes = notes(before, c.After)
	if r.Empty() {
		return Report{}
	}
	sortRows(r.Rows)
	return r
}

// Compare is the offline form (policy_changes): every sampled request
// whose decision differs between the whole sets, joint effects included.
func Compare(before, after []policyset.Policy) Report {
	bo, ao := NewOrg(before), NewOrg(after)
	all := append(slices.Clone(before), after...)
	o := NewOrg(all)
	var r Report
	for _, typ := range policyTypes {
		if len(o.byType[typ]) == 0 {
			continue
		}
		r.Types++
		for _, s := range o.sample(typ) {
			r.Requests++
			// One evaluator for both sets: an expression both hold is
			// evaluated once.
			st := o.state(s)
			was := decideWith(bo, st)
			now := decideWith(ao, st)
			if was != now {
				r.Rows = append(r.Rows, row(s, was, now))
			}
		}
	}
	sortRows(r.Rows)
	changed := changedPolicies(before, after)
	for _, p := range changed {
		r.Notes = append(r.Notes, notes(p)...)
	}
	slices.Sort(r.Notes)
	r.Notes = slices.Compact(r.Notes)
	return r
}

// decideWith decides the request over one set's policies of its type.
func decideWith(set *Org, st *reqState) string {
	var t policyset.Tally
	for _, i := range set.byType[st.req.Type] {
		t.Add(st.ev.Outcome(set.policies[i]), 1)
	}
	return policyset.DecideTally(t, st.req).Outcome
}

// changedPolicies are the versions whose decision fields are in one set
// and not the other, for the notes.
func changedPolicies(before, after []policyset.Policy) []*policyset.Policy {
	has := func(set []policyset.Policy, p policyset.Policy) bool {
		return slices.ContainsFunc(set, func(q policyset.Policy) bool { return q.ID == p.ID && sameDecision(p, q) })
	}
	var out []*policyset.Policy
	for i := range before {
		if !has(after, before[i]) {
			out = append(out, &before[i])
		}
	}
	for i := range after {
		if !has(before, after[i]) {
			out = append(out, &after[i])
		}
	}
	return out
}

func row(s sampled, before, after string) Row {
	return Row{Type: s.req.Type, Before: before, After: after, Request: s.req, Example: s.example, Words: s.words}
}

// sortRows orders rows widening first, then by activity type in catalogue
// order; the sort is stable, so the sample's order stays within a type.
func sortRows(rows []Row) {
	order := map[string]int{}
	for i, t := range policyTypes {
		order[t] = i
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		if d := rank(a.Before, a.After) - rank(b.Before, b.After); d != 0 {
			return d
		}
		return order[a.Type] - order[b.Type]
	})
}

// notes name what a changed policy reads that the sampler cannot vary.
func notes(ps ...*policyset.Policy) []string {
	var out []string
	for _, p := range ps {
		if p == nil {
			continue
		}
		a := walkPolicy(p.Condition, p.Consensus, p.Time)
		if len(a.opaque) > 0 {
			out = append(out, fmt.Sprintf("%q reads %s, which the sampled requests do not vary: its effect there is not shown.",
				name(*p), strings.Join(a.opaque, ", ")))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// name is how a report names a policy: its name, else its id.
func name(p policyset.Policy) string {
	if p.Name != "" {
		return p.Name
	}
	return p.ID
}
