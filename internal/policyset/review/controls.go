package review

import (
	"fmt"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

const (
	outcomeAllow     = client.OutcomeAllow
	outcomeConsensus = client.OutcomeRequiresConsensus
)

// Controls are judged in the most permissive state an apply can pass
// through: each counted change, per request, in whichever of its versions
// allows more. That state only gets more permissive as changes arrive, so
// the verdict does not depend on the order Terraform plans in; which
// change carries a breach is the first that tips it.

// CheckControls counts c into the most permissive state and returns, for
// each control and type it names that c can touch: a breach the state
// newly lets through, or why the control could not be proved to hold
// (NotProved); each once per command. "Holds" is never said: a control
// without a breach or a NotProved is proved. What the organization broke
// before the plan is JudgeOrganization's.
func (o *Org) CheckControls(c Change, controls []Control) []Breach {
	if decisionEqual(c) {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.lookup(c.Before)
	key := changeKey(before, c.After)
	if o.keys[key] {
		// Counted and checked already: the state is as it was then.
		return nil
	}
	o.keys[key] = true
	change := symbolic.Counted{Before: before, After: c.After}
	o.planned = append(o.planned, change)
	types := typesOf(before, c.After)
	for _, typ := range types {
		o.countedOf(typ).add(change)
	}
	// The report's summary of this change is read here only.
	defer delete(o.allows, key)
	var out []Breach
	for _, typ := range types {
		for _, ctl := range controls {
			if !slices.Contains(ctl.ActivityTypes, typ) {
				continue
			}
			alone := ctl.AtMost == AtMostConsensus
			// Newly broken: asked about the requests where this change
			// applies (each change is asked about as it is counted, so that
			// is every request the state newly allows), until one is found.
			var got symbolic.Breach
			if !o.reported[ctl.Name+"\x00"+typ+"\x00newly"] {
				full, sliced := o.controlState(typ, change)
				// The change's report may already prove there is none
				// (newly_allowed.go).
				if !o.noneNewly(key, change, sliced.Counted, typ, alone) {
					got = symbolic.ControlNewly(typ, full, &sliced, &change, alone, o.rootIDs)
				}
			}
			report := func(kind string, b Breach) {
				k := ctl.Name + "\x00" + typ + "\x00" + kind
				if !o.reported[k] {
					o.reported[k] = true
					out = append(out, b)
				}
			}
			if got.Newly != nil {
				report("newly", Breach{Control: ctl, Row: breachRow(typ, *got.Newly, o.typeIndex()[typ])})
			}
			if got.NotProved != "" && got.Newly == nil {
				report("not proved", Breach{Control: ctl, Row: Row{Type: typ, Types: []string{typ}}, NotProved: got.NotProved})
			}
		}
	}
	return out
}

// alreadyBroken is symbolic.ControlAlready for typ, once per command;
// o.mu is held.
func (o *Org) alreadyBroken(typ string, alone bool) symbolic.Breach {
	k := typ + "\x00" + fmt.Sprint(alone)
	if b, ok := o.already[k]; ok {
		return b
	}
	b := symbolic.ControlAlready(typ, o.typeIndex()[typ], alone, o.rootIDs, o.budget)
	o.already[k] = b
	return b
}
