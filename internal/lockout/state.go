package lockout

import (
	"context"
	"slices"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// ManagedTypes are the activities the provider manages policies
// with. An array, so that typeOutcomes can hold one outcome per type.
var ManagedTypes = [...]string{client.OpCreatePolicies.Type, client.OpUpdatePolicy.Type, client.OpDeletePolicy.Type,
	client.OpDeletePolicies.Type}

// typeOutcomes is one policy version's outcome on each of the
// ManagedTypes; the zero value is an absent policy.
type typeOutcomes [len(ManagedTypes)]policyset.PolicyOutcome

// guardChange is a change the guard counts.
type guardChange struct {
	Change
	slot     int
	outcomes typeOutcomes // its after version's; absent for a delete
	done     bool         // made (at apply): the slot holds its after version now
}

// changeKey finds the counted change that a Create, Update or Delete of
// the apply has made.
type changeKey struct {
	id       string
	hasAfter bool
	after    policyset.Policy
}

func keyOf(c Change) changeKey {
	k := changeKey{id: c.ID, hasAfter: c.After != nil}
	if c.After != nil {
		k.after = *c.After
	}
	return k
}

// guardBase is the organization as the command found it, the changes
// counted since, and the user's standing on each policy management type.
type guardBase struct {
	who   *client.WhoamiResponse
	byID  map[string]int // policy id → slot
	slots []guardSlot    // the organization's policies, then one per create
	// pending indexes the changes not made yet, for applied; built at the
	// first, so that a plan, which makes nothing, never pays for it.
	pending map[changeKey][]*guardChange
	types   [len(ManagedTypes)]*guardType
}

// guardSlot is one policy: the organization's, or a planned create's.
type guardSlot struct {
	changes []*guardChange // counted on it, in order
	made    *guardChange   // the last of them made, whose version it holds now; nil: the organization's
}

// guardType is the user's standing on one activity type. A plan of N
// policy changes checks N times, so each check updates tallies of the
// outcomes in place (policyset.Tally) instead of deciding N policies
// again; the policies are named only in a report.
type guardType struct {
	req policyset.Request
	e   *policyset.Evaluator
	// the organization's policies before the command: names and outcomes
	baseNames    []string
	baseOutcomes []policyset.PolicyOutcome
	baseTally    policyset.Tally
	// per slot, the worst state (the version of the slot that allows the
	// user least on this type; worstBy is the change whose after version
	// it is, nil for the slot's current one) and the final state (every
	// change made)
	worst      []policyset.PolicyOutcome
	worstBy    []*guardChange
	worstTally policyset.Tally
	final      []policyset.PolicyOutcome
	finalTally policyset.Tally
}

// worstTallies copies the tallies of the worst state.
func (b *guardBase) worstTallies() (t [len(ManagedTypes)]policyset.Tally) {
	for i, gt := range b.types {
		t[i] = gt.worstTally
	}
	return t
}

// count adds change c to the slot of its policy (a new one for a create);
// false when it changes nothing the guard counts (the delete of a policy
// the organization does not hold). g.mu is held.
func (b *guardBase) count(c Change) (*guardChange, bool) {
	slot, ok := b.byID[c.ID]
	if !ok || c.ID == "" {
		if c.After == nil {
			return nil, false
		}
		slot = len(b.slots)
		b.slots = append(b.slots, guardSlot{})
		for _, gt := range b.types {
			gt.worst, gt.worstBy, gt.final = append(gt.worst, policyset.PolicyOutcome{}), append(gt.worstBy, nil), append(gt.final, policyset.PolicyOutcome{})
		}
	}
	gc := &guardChange{Change: c, slot: slot}
	if c.After != nil {
		for t, gt := range b.types {
			gc.outcomes[t] = gt.e.Outcome(*c.After)
		}
	}
	b.slots[slot].changes = append(b.slots[slot].changes, gc)
	if b.pending != nil {
		b.index(gc)
	}
	b.settle(slot)
	return gc, true
}

// index adds gc to pending. g.mu is held.
func (b *guardBase) index(gc *guardChange) {
	k := keyOf(gc.Change)
	b.pending[k] = append(b.pending[k], gc)
}

// uncount takes back gc, the change counted last. g.mu is held.
func (b *guardBase) uncount(gc *guardChange) {
	s := &b.slots[gc.slot]
	s.changes = slices.DeleteFunc(s.changes, func(o *guardChange) bool { return o == gc })
	if b.pending != nil {
		k := keyOf(gc.Change)
		if b.pending[k] = slices.DeleteFunc(b.pending[k], func(o *guardChange) bool { return o == gc }); len(b.pending[k]) == 0 {
			delete(b.pending, k)
		}
	}
	b.settle(gc.slot)
}

// settle recounts slot s on every type: its worst version is the least
// permissive of the version it holds now and the after versions of the
// changes not made yet; its final version is the last change's. The cost
// is the number of changes of one policy, not of the plan. g.mu is held.
func (b *guardBase) settle(s int) {
	slot := b.slots[s]
	for t, gt := range b.types {
		var now policyset.PolicyOutcome
		if s < len(gt.baseOutcomes) {
			now = gt.baseOutcomes[s]
		}
		if slot.made != nil {
			now = slot.made.outcomes[t]
		}
		worst, by, final := now, slot.made, now
		for _, c := range slot.changes {
			final = c.outcomes[t]
			if !c.done && permissiveness(c.outcomes[t]) < permissiveness(worst) {
				worst, by = c.outcomes[t], c
			}
		}
		gt.worstTally.Add(gt.worst[s], -1)
		gt.worstTally.Add(worst, 1)
		gt.finalTally.Add(gt.final[s], -1)
		gt.finalTally.Add(final, 1)
		gt.worst[s], gt.worstBy[s], gt.final[s] = worst, by, final
	}
}

// permissiveness orders outcomes as the engine lets them decide: an
// explicit deny allows the user least, then an outcome that counts for
// nothing (not applicable, time-inactive, an error, an absent policy),
// then a consensus, then an allow. The decision of a set never allows
// more when one policy's outcome moves down this order.
func permissiveness(r policyset.PolicyOutcome) int {
	switch r.Outcome {
	case client.OutcomeDenyExplicit:
		return 0
	case client.OutcomeRequiresConsensus:
		return 2
	case client.OutcomeAllow:
		return 3
	}
	return 1
}

// baseline lists the organization's policies (the command's one list) and
// decides the provider's user on each policy management type, once it
// succeeds.
func (g *Guard) baseline(ctx context.Context) (*guardBase, error) {
	return g.base.Get(ctx, func(ctx context.Context) (*guardBase, error) {
		who, err := g.r.Identity(ctx)
		if err != nil {
			return nil, err
		}
		all, err := g.r.Policies(ctx)
		if err != nil {
			return nil, err
		}
		n := len(all)
		b := &guardBase{who: who, byID: make(map[string]int, n), slots: make([]guardSlot, n)}
		for i := range all {
			b.byID[all[i].PolicyID] = i
		}
		now := time.Now()
		for t, typ := range ManagedTypes {
			gt := &guardType{req: guardRequest(who, g.r.PublicKey(), typ, now, nil)}
			gt.e = policyset.NewEvaluator(gt.req)
			gt.baseNames, gt.baseOutcomes = make([]string, n), make([]policyset.PolicyOutcome, n)
			for i := range all {
				gt.baseNames[i], gt.baseOutcomes[i] = all[i].PolicyName, gt.e.Outcome(policyset.FromClient(&all[i]))
				gt.baseTally.Add(gt.baseOutcomes[i], 1)
			}
			gt.worst, gt.worstBy, gt.final = slices.Clone(gt.baseOutcomes), make([]*guardChange, n), slices.Clone(gt.baseOutcomes)
			gt.worstTally, gt.finalTally = gt.baseTally, gt.baseTally
			b.types[t] = gt
		}
		return b, nil
	})
}
