package review

import (
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// A plan of N changes asks N questions, each about the few policies a
// change's guards admit (symbolic.SliceByGuards). These indexes find
// those policies without reading the whole organization, or every
// change counted so far, once per change.

// orgIndex is the organization's policies of typ, indexed by guards;
// o.mu is held.
func (o *Org) orgIndex(typ string) *symbolic.GuardIndex {
	x, ok := o.guardIndex[typ]
	if !ok {
		x = symbolic.NewGuardIndex(o.typeIndex()[typ])
		o.guardIndex[typ] = x
	}
	return x
}

// allIndex is every policy of the organization, indexed by guards; o.mu
// is held.
func (o *Org) allIndex() *symbolic.GuardIndex {
	if o.all == nil {
		o.all = symbolic.NewGuardIndex(o.policies)
	}
	return o.all
}

// sameDecisionAs lists the policies whose decision fields are p's, in the
// organization's order; o.mu is held.
func (o *Org) sameDecisionAs(p policyset.Policy) []policyset.Policy {
	if o.byDecision == nil {
		o.byDecision = make(map[string][]int, len(o.policies))
		for i, q := range o.policies {
			k := q.DecisionKey()
			o.byDecision[k] = append(o.byDecision[k], i)
		}
	}
	var out []policyset.Policy
	for _, i := range o.byDecision[p.DecisionKey()] {
		out = append(out, o.policies[i])
	}
	return out
}

// countedOf is the changes counted for typ so far; o.mu is held.
func (o *Org) countedOf(typ string) *countedIndex {
	x, ok := o.counted[typ]
	if !ok {
		x = &countedIndex{versions: symbolic.NewGuardIndex(nil)}
		o.counted[typ] = x
	}
	return x
}

// controlState is the state a control on typ is judged on, whole and
// sliced by the versions of change (just counted); o.mu is held.
func (o *Org) controlState(typ string, change symbolic.Counted) (full, sliced symbolic.ControlState) {
	around := change.Versions()
	counted := o.countedOf(typ)
	full = symbolic.ControlState{Org: o.typeIndex()[typ], Counted: counted.changes, Budget: o.budget}
	sliced = symbolic.ControlState{Org: o.orgIndex(typ).Slice(around), Counted: counted.slice(around), Budget: o.budget}
	return full, sliced
}

// countedIndex is the changes counted for one type, with their versions
// indexed by guards.
type countedIndex struct {
	changes  []symbolic.Counted
	versions *symbolic.GuardIndex
	// owner and isAfter say, for each indexed version, which change it
	// belongs to and whether it is the change's after version.
	owner   []int
	isAfter []bool
}

func (x *countedIndex) add(c symbolic.Counted) {
	k := len(x.changes)
	x.changes = append(x.changes, c)
	for _, v := range []struct {
		p     *policyset.Policy
		after bool
	}{{c.Before, false}, {c.After, true}} {
		if v.p != nil {
			x.versions.Add(*v.p)
			x.owner, x.isAfter = append(x.owner, k), append(x.isAfter, v.after)
		}
	}
}

// slice keeps of each change the versions the guards of around admit
// (SliceByGuards, by the index); a change with neither is left out.
func (x *countedIndex) slice(around []policyset.Policy) []symbolic.Counted {
	is := x.versions.SliceIndexes(around)
	if is == nil {
		return x.changes
	}
	var out []symbolic.Counted
	last := -1
	for _, i := range is {
		k := x.owner[i]
		if k != last {
			out = append(out, symbolic.Counted{})
			last = k
		}
		if x.isAfter[i] {
			out[len(out)-1].After = x.changes[k].After
		} else {
			out[len(out)-1].Before = x.changes[k].Before
		}
	}
	return out
}

// keepWitnesses keeps the witnesses of r, the report on the change key
// names (changeKey), for the findings on its after version (Findings,
// which the provider asks next); o.mu is held.
func (o *Org) keepWitnesses(key string, r Report) {
	var ws []policyset.Request
	for _, row := range r.Rows {
		if row.Proved {
			ws = append(ws, row.Request)
		}
	}
	if len(ws) > 0 {
		o.witnesses[key] = ws
	}
}

// takeWitnesses returns, and forgets, the witnesses kept for the change
// key names; o.mu is held.
func (o *Org) takeWitnesses(key string) []policyset.Request {
	ws := o.witnesses[key]
	delete(o.witnesses, key)
	return ws
}

// changeKey identifies a change by the organization's version of its
// policy (Org.lookup, nil for a create) and its after version: the key
// under which its report leaves what its findings and controls read.
func changeKey(before, after *policyset.Policy) string {
	return policyKey(before) + "\x02" + policyKey(after)
}
