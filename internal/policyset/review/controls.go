package review

import (
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
// newly lets through (Already false), one that broke the control before
// the plan (Already true), or why the control could not be proved to hold
// (NotProved); each once per command. "Holds" is never said: a control
// without a breach or a NotProved is proved.
func (o *Org) CheckControls(c Change, controls []Control) []Breach {
	if decisionEqual(c) {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.lookup(c.Before)
	key := policyKey(before) + "\x02" + policyKey(c.After)
	if !o.keys[key] {
		o.keys[key] = true
		o.counted = append(o.counted, symbolic.Counted{Before: before, After: c.After})
	}
	var out []Breach
	for _, typ := range typesOf(before, c.After) {
		for _, ctl := range controls {
			if !slices.Contains(ctl.ActivityTypes, typ) {
				continue
			}
			var counted []symbolic.Counted
			for _, k := range o.counted {
				if slices.Contains(typesOf(k.Before, k.After), typ) {
					counted = append(counted, k)
				}
			}
			got := symbolic.CheckControl(typ, o.typeIndex()[typ], counted, ctl.AtMost == AtMostConsensus, o.rootIDs)
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
			if got.Already != nil {
				report("already", Breach{Control: ctl, Row: breachRow(typ, *got.Already, o.typeIndex()[typ]), Already: true})
			}
			if got.NotProved != "" && got.Newly == nil {
				report("not proved", Breach{Control: ctl, Row: Row{Type: typ, Types: []string{typ}}, NotProved: got.NotProved})
			}
		}
	}
	return out
}
