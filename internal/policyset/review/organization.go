package review

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// A control is a property of the organization, not of a diff: besides
// what each change newly lets through (CheckControls), a plan is held to
// the controls on the organization as it leaves it, whoever made the
// policies that break them (a grant added outside Terraform, say).

// OrgBreach is a control broken by the organization as a plan leaves it,
// or one broken as found that the plan's removals mend.
type OrgBreach struct {
	Control Control
	// Row is the witness: a request the organization allows, as the plan
	// leaves it (or, when Mended, as found); Before is its outcome as
	// found.
	Row Row
	// TakingPart are the policies that allow the witness: each of them
	// alone lets it through.
	TakingPart []policyset.Policy
	// Mended: the organization as found breaks the control and the plan's
	// removals mend it; TakingPart are then the removed policies that
	// allowed the witness.
	Mended bool
	// NotProved says why the control could be neither proved to hold nor
	// shown broken for Row.Type.
	NotProved string
}

// JudgeOrganization holds the controls to the organization as the plan
// leaves it: as found, with each change counted so far (CheckControls) in
// its after version, and the policies removed (by id) gone. It names the
// breaches the organization had as found and the plan leaves: a request
// both allow (symbolic.ControlStill). What the plan newly lets through is
// CheckControls' to say, once, on the change that does it; between them
// they name every breach the plan leaves, and never one twice. At most
// one breach per control and type: the first type's witness is enough to
// say the control is broken, and the rest are asked too, since a reviewer
// fixing one type should see the others.
func (o *Org) JudgeOrganization(controls []Control, removed []string) []OrgBreach {
	o.mu.Lock()
	defer o.mu.Unlock()
	asLeft := o.asLeft(removed, false)
	var before []policyset.Policy // before the removals, when there are any
	if len(removed) > 0 {
		before = o.asLeft(removed, true)
	}
	var out []OrgBreach
	cache := map[string]symbolic.Breach{}
	ask := func(left []policyset.Policy, key, typ string, alone bool) symbolic.Breach {
		k := key + "\x00" + typ + "\x00" + boolKey(alone)
		if b, ok := cache[k]; ok {
			return b
		}
		b := o.stillBroken(left, typ, alone)
		cache[k] = b
		return b
	}
	for _, ctl := range controls {
		alone := ctl.AtMost == AtMostConsensus
		for _, typ := range ctl.ActivityTypes {
			got := ask(asLeft, "left", typ, alone)
			switch {
			case got.NotProved != "":
				out = append(out, OrgBreach{Control: ctl, Row: Row{Type: typ, Types: []string{typ}}, NotProved: got.NotProved})
			case got.Already != nil:
				out = append(out, o.orgBreach(ctl, typ, *got.Already, asLeft, false))
			case before != nil:
				// Holds as the plan leaves it: say so when the removals
				// are what mends it.
				was := ask(before, "restored", typ, alone)
				if was.Already != nil {
					out = append(out, o.orgBreach(ctl, typ, *was.Already, removedOf(before, removed), true))
				}
			}
		}
	}
	return out
}

// stillBroken is a request of typ, approved as the control says, that
// the organization as found allows and left allows too. The organization
// as found is asked once per command (alreadyBroken): where it holds, or
// where its witness is still allowed, nothing more is asked. o.mu is held.
func (o *Org) stillBroken(left []policyset.Policy, typ string, alone bool) symbolic.Breach {
	found := o.alreadyBroken(typ, alone)
	if found.NotProved == "" && found.Already == nil {
		return found
	}
	leftOfType := byType(left, []string{typ})[typ]
	if found.Already != nil && policyset.Decide(leftOfType, *found.Already).Verdict == client.OutcomeAllow {
		return found
	}
	return symbolic.ControlStill(typ, o.typeIndex()[typ], leftOfType, alone, o.rootIDs, o.budget)
}

// orgBreach is the breach of ctl on typ that req witnesses, naming the
// policies of among that allow it.
func (o *Org) orgBreach(ctl Control, typ string, req policyset.Request, among []policyset.Policy, mended bool) OrgBreach {
	row := breachRow(typ, req, o.typeIndex()[typ])
	d := policyset.Decide(among, req)
	var taking []policyset.Policy
	for i, po := range d.Policies {
		if po.Outcome == client.OutcomeAllow {
			taking = append(taking, among[i])
		}
	}
	return OrgBreach{Control: ctl, Row: row, TakingPart: taking, Mended: mended}
}

// asLeft is the organization as the plan leaves it, as far as it is
// counted: each counted change in its after version (a create added, a
// delete gone), and the removed ids gone; or, with restore, the removed
// ids kept as found (their removals may have been counted as deletes, to
// review them): the state the removals mend, when they do. o.mu is held.
func (o *Org) asLeft(removed []string, restore bool) []policyset.Policy {
	gone := map[string]bool{}
	for _, id := range removed {
		gone[id] = true
	}
	changed := map[string]*policyset.Policy{}
	var created []policyset.Policy
	for _, c := range o.planned {
		switch {
		case c.Before != nil && gone[c.Before.ID] && restore:
			continue
		case c.Before != nil:
			changed[c.Before.ID] = c.After
		case c.After != nil:
			created = append(created, *c.After)
		}
	}
	out := make([]policyset.Policy, 0, len(o.policies)+len(created))
	for _, p := range o.policies {
		if gone[p.ID] && !restore {
			continue
		}
		if after, ok := changed[p.ID]; ok {
			if after != nil {
				out = append(out, *after)
			}
			continue
		}
		out = append(out, p)
	}
	return append(out, created...)
}

// removedOf keeps the policies of ps whose id is removed.
func removedOf(ps []policyset.Policy, removed []string) []policyset.Policy {
	return slices.DeleteFunc(slices.Clone(ps), func(p policyset.Policy) bool { return !slices.Contains(removed, p.ID) })
}

func boolKey(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
