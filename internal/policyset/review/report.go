package review

import (
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// Report: before = the organization; after = the organization with c (an
// update or delete finds its policy by c.Before.ID; a create adds
// c.After). A change of name or notes only, or one that moves no verdict
// of any request, gives an empty Report: that emptiness is proved.
func (o *Org) Report(c Change) Report {
	if decisionEqual(c) {
		return Report{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.lookup(c.Before)
	types, versions, beforeOf, afterOf := o.sets(before, c.After)
	r := compare(beforeOf, afterOf, types, versions, o.rootIDs, o.budget)
	key := changeKey(before, c.After)
	if c.After != nil {
		o.keepWitnesses(key, r)
	}
	o.allows[key] = r.allows
	return r
}

// Sets are, for each activity type a version of c may apply to, the
// organization's policies before and after c as Report compares them:
// those the changed versions' guards admit; and those versions (the prior
// one as the organization has it). Deciding a request with the sets moves
// it exactly where deciding it with the whole organization does (the
// others apply to none of the requests the changed versions do), so the
// replay decides each recent activity with them.
func (o *Org) Sets(c Change) (types []string, versions []policyset.Policy, before, after map[string][]policyset.Policy) {
	if decisionEqual(c) {
		return nil, nil, nil, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sets(o.lookup(c.Before), c.After)
}

// sets are Sets, with the changed versions' values, of the prior version
// before (as the organization has it) and the planned one.
func (o *Org) sets(before, planned *policyset.Policy) (types []string, versions []policyset.Policy, beforeOf, afterOf map[string][]policyset.Policy) {
	changed := changedVersions(before, planned)
	types = typesOf(changed...)
	// The organization's policies by type are read once per command, and
	// only those the changed versions' guards admit are asked about
	// (compare); after is the same less the prior version, plus the new one.
	versions = valuesOf(changed)
	beforeOf, afterOf = map[string][]policyset.Policy{}, map[string][]policyset.Policy{}
	for _, t := range types {
		admitted := o.orgIndex(t).Slice(versions)
		beforeOf[t] = admitted
		after := admitted
		if before != nil {
			after = slices.DeleteFunc(slices.Clone(after), func(p policyset.Policy) bool { return p.ID == before.ID })
		}
		if planned != nil && slices.Contains(symbolic.MayApply(*planned), t) {
			after = append(slices.Clip(after), *planned)
		}
		afterOf[t] = after
	}
	return types, versions, beforeOf, afterOf
}

// Compare is the offline form (policy_changes): the regions whose verdict
// differs between the whole sets, joint effects included, over the types
// a changed policy version can apply to.
func Compare(before, after []policyset.Policy, rootIDs []string) Report {
	changed := changedPolicies(before, after)
	types := typesOf(changed...)
	changedSet := valuesOf(changed)
	// Each type's sets keep only the policies the changed versions' guards
	// admit (symbolic.SliceByGuards): the rest count for nothing wherever
	// a verdict can move. (Report's sets come sliced by the index.)
	beforeOf, afterOf := byType(before, types), byType(after, types)
	for _, typ := range types {
		beforeOf[typ] = symbolic.SliceByGuards(beforeOf[typ], changedSet)
		afterOf[typ] = symbolic.SliceByGuards(afterOf[typ], changedSet)
	}
	return compare(beforeOf, afterOf, types, changedSet, rootIDs, symbolic.NewBudget(PlanBudget, "this call", nil))
}

// valuesOf is the changed versions as values.
func valuesOf(ps []*policyset.Policy) []policyset.Policy {
	out := make([]policyset.Policy, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

func changedVersions(ps ...*policyset.Policy) []*policyset.Policy {
	var out []*policyset.Policy
	for _, p := range ps {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// compare is the report over types (the types a changed version can
// apply to), given the policies before and after that count for each,
// sliced by the changed versions' guards (changedSet).
func compare(beforeOf, afterOf map[string][]policyset.Policy, types []string, changedSet []policyset.Policy, rootIDs []string, plan *symbolic.Budget) Report {
	var r Report
	// Types whose questions are the same (the same policies can count,
	// alike as far as the type goes) are asked once: a change that names
	// no activity type touches a hundred and fifty of them.
	r.Types = len(types)
	var keys []string
	groups := map[string][]string{}
	for _, typ := range types {
		b, a := beforeOf[typ], afterOf[typ]
		k := typ // one type is its own group: no key to build
		if len(types) > 1 {
			k = symbolic.TypeKey(typ, append(append(slices.Clip(b), a...), changedSet...)) + "\x00" + policyIDs(b) + "\x00" + policyIDs(a)
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], typ)
	}
	var rows []Row
	for _, k := range keys {
		group := groups[k]
		typ := group[0]
		b, a := beforeOf[typ], afterOf[typ]
		regions, more, _ := symbolic.RegionsWithin(symbolic.NewBudget(TypeBudget, typ+" of this change", plan), typ, b, a, changedSet, rootIDs)
		r.More += more * len(group)
		for _, other := range group {
			allows := newlyAllowed{proved: more == 0}
			for _, g := range regions {
				g := retyped(g, other, b, a)
				allows.add(g)
				rows = append(rows, rowOf(g))
			}
			if r.allows == nil {
				r.allows = map[string]newlyAllowed{}
			}
			r.allows[other] = allows
		}
	}
	r.Rows = groupRows(rows)
	return r
}

// retyped is a region of one type said of another whose question is the
// same: its witness, with the other type, is decided again.
func retyped(g symbolic.Region, typ string, before, after []policyset.Policy) symbolic.Region {
	if g.Type == typ || !g.Proved {
		g.Type = typ
		return g
	}
	req := g.Witness
	req.Type = typ
	g.Type, g.Witness = typ, req
	e := policyset.NewEvaluator(req)
	if policyset.DecideWith(e, before, req).Verdict != g.Before || policyset.DecideWith(e, after, req).Verdict != g.After {
		g.Proved, g.NotProved = false, "the witness of "+g.Type+" does not decide alike for "+typ
	}
	return g
}

func policyIDs(ps []policyset.Policy) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.ID + ",")
	}
	return b.String()
}

// rowOf is a region as a row; a region whose witness did not replay is a
// not-proved row that says why.
func rowOf(g symbolic.Region) Row {
	row := Row{Type: g.Type, Types: []string{g.Type}, Before: g.Before, After: g.After, Region: g.Words(), Proved: g.Proved}
	if !g.Proved {
		row.After = NotProved
		row.Region = "not proved (" + g.Before + " -> " + g.After + "): " + g.NotProved
		row.Words = row.Region
		return row
	}
	row.Request = g.Witness
	row.Example = example(g.Witness)
	row.Atoms = g.Atoms
	return row
}

// groupRows merges the rows that say the same of several types into one,
// named by the narrowest description that covers exactly them, and sorts
// them: widening first, then by type in catalogue order, not-proved last.
func groupRows(rows []Row) []Row {
	var out []Row
	index := map[string]int{}
	for _, r := range rows {
		key := r.Before + "\x00" + r.After + "\x00" + r.Region + "\x00" + who(r.Request.Approvers)
		if i, ok := index[key]; ok {
			out[i].Types = append(out[i].Types, r.Type)
			continue
		}
		index[key] = len(out)
		out = append(out, r)
	}
	for i := range out {
		out[i].TypesWords = typesWords(out[i].Types)
		if out[i].Proved {
			parts := []string{who(out[i].Request.Approvers), out[i].TypesWords}
			if out[i].Region != "" {
				parts = append(parts, out[i].Region)
			}
			out[i].Words = strings.Join(parts, ", ")
		}
	}
	slices.SortStableFunc(out, func(a, b Row) int {
		if d := rank(a.Before, a.After) - rank(b.Before, b.After); d != 0 {
			return d
		}
		return typeOrder[a.Type] - typeOrder[b.Type]
	})
	return out
}

// typeOrder is each type's place in the catalogue.
var typeOrder = func() map[string]int {
	order := make(map[string]int, len(symbolic.PolicyTypes))
	for i, t := range symbolic.PolicyTypes {
		order[t] = i
	}
	return order
}()

// changedPolicies are the versions whose decision fields are in one set
// and not the other.
// ChangedVersions are the versions that differ between two whole lists
// (by id and what decides), as Compare finds them: the replay of a
// data source's lists evaluates them first.
func ChangedVersions(before, after []policyset.Policy) []policyset.Policy {
	return valuesOf(changedPolicies(before, after))
}

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
