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
		v := o.sample(typ, before, c.After)
		r.Requests += v.len()
		// A request neither version can count for keeps its decision.
		for _, i := range o.movable(v, before, c.After) {
			s := v.at(i)
			st := o.state(s)
			t, was := o.baseTally(st)
			t.Add(outcome(st, before), -1)
			t.Add(outcome(st, c.After), 1)
			if now := policyset.DecideTally(t, s.req).Verdict; now != was {
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
// It samples as a report does, the before set being the organization and
// every changed version the change, so that for one change it gives the
// same rows as that change's Report. Only the types a changed policy can
// apply to can differ: those are decided, and counted in Requests and
// Types.
func Compare(before, after []policyset.Policy) Report {
	changed := changedPolicies(before, after)
	bo, ao := NewOrg(before), NewOrg(after)
	var r Report
	for _, typ := range bo.typesOf(changed...) {
		r.Types++
		for _, s := range bo.sample(typ, changed...).all() {
			r.Requests++
			st := bo.state(s)
			_, was := bo.baseTally(st)
			// The after set's policies are decided with the same
			// evaluator: an expression both sets hold is evaluated once.
			var t policyset.Tally
			for _, i := range ao.byType[typ] {
				t.Add(st.ev.Outcome(ao.policies[i]), 1)
			}
			if now := policyset.DecideTally(t, s.req).Verdict; now != was {
				r.Rows = append(r.Rows, row(s, was, now))
			}
		}
	}
	sortRows(r.Rows)
	r.Notes = notes(changed...)
	return r
}

// changedPolicies are the versions whose decision fields are in one set
// and not the other, for the types to decide and the notes.
func changedPolicies(before, after []policyset.Policy) []*policyset.Policy {
	keys := func(set []policyset.Policy) map[string]bool {
		m := make(map[string]bool, len(set))
		for i := range set {
			m[policyKey(&set[i])] = true
		}
		return m
	}
	inBefore, inAfter := keys(before), keys(after)
	var out []*policyset.Policy
	for i := range before {
		if !inAfter[policyKey(&before[i])] {
			out = append(out, &before[i])
		}
	}
	for i := range after {
		if !inBefore[policyKey(&after[i])] {
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
	slices.SortStableFunc(rows, func(a, b Row) int {
		if d := rank(a.Before, a.After) - rank(b.Before, b.After); d != 0 {
			return d
		}
		return typeOrder[a.Type] - typeOrder[b.Type]
	})
}

// typeOrder is each type's place in policyTypes, built once: every
// report sorts its rows by it.
var typeOrder = func() map[string]int {
	order := make(map[string]int, len(policyTypes))
	for i, t := range policyTypes {
		order[t] = i
	}
	return order
}()

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
