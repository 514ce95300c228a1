package review

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// A change's report and its controls ask about the same requests. When
// the change is the only one counted where its guards admit, and both of
// its versions are allows (or absent), the most permissive state allows a
// request the organization does not exactly where the after set allows
// and the before set does not: with deny D and the other allows A fixed,
// the state allows on ¬D ∧ (A ∨ before ∨ after), the organization on
// ¬D ∧ (A ∨ before), the after set on ¬D ∧ (A ∨ after). The report's
// regions contain every request that moves, and each region's witness
// has the fewest approvers in it; so a proved report without a row into
// OUTCOME_ALLOW whose witness is one approver proves that no request of
// one approver is newly allowed, and the control's question need not be
// asked.

// newlyAllowed is, for one type, what a report's regions say of the
// requests it newly allows.
type newlyAllowed struct {
	// proved: every region was listed (none past the cap) and each
	// witness decided as claimed.
	proved bool
	// any: some region moves into OUTCOME_ALLOW; alone: one whose
	// witness is one approver.
	any, alone bool
}

func (n *newlyAllowed) add(g symbolic.Region) {
	if !g.Proved {
		n.proved = false
		return
	}
	if g.Before != client.OutcomeAllow && g.After == client.OutcomeAllow {
		n.any = true
		n.alone = n.alone || len(g.Witness.Approvers) == 1
	}
}

// noneNewly tells whether the report on change (key: changeKey) proves,
// for typ, that the controls' state newly allows no request approved as
// alone says; false when it cannot tell, and the control's own question is
// asked. sliced is the counted changes the change's guards admit; o.mu is
// held.
func (o *Org) noneNewly(key string, change symbolic.Counted, sliced []symbolic.Counted, typ string, alone bool) bool {
	allowOrAbsent := func(p *policyset.Policy) bool { return p == nil || p.Effect == client.EffectAllow }
	if !allowOrAbsent(change.Before) || !allowOrAbsent(change.After) {
		return false
	}
	if len(sliced) != 1 || sliced[0].Before != change.Before || sliced[0].After != change.After {
		return false
	}
	n, ok := o.allows[key][typ]
	if !ok || !n.proved {
		return false
	}
	if alone {
		return !n.alone
	}
	return !n.any
}
