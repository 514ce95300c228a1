package replay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// The sets review.Org.Sets gives a change (the policies its versions'
// guards admit) move exactly the activities the whole organization's
// policies move, with the same verdicts: random organizations of
// transfer limits on shared destinations, random histories, random
// changes.
func TestSlicedSetsMoveAsWholeSets(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 1))
	dests := []string{payee, "0x3333333333333333333333333333333333333333", "0x4444444444444444444444444444444444444444"}
	policy := func(i int) policyset.Policy {
		p := policyset.Policy{ID: fmt.Sprint("p", i), Name: fmt.Sprint("policy ", i), Effect: client.EffectAllow,
			Condition: fmt.Sprintf("activity.type == '%s' && eth.tx.to == '%s' && eth.tx.value < %d", signTx, dests[r.IntN(len(dests))], r.IntN(20))}
		switch r.IntN(4) {
		case 0:
			p.Effect = client.EffectDeny
		case 1:
			p.Consensus = "approvers.any(u, u.tags.contains('tag-officer'))"
		}
		return p
	}
	moved := 0
	for round := range 30 {
		var ps []policyset.Policy
		for i := range 2 + r.IntN(8) {
			ps = append(ps, policy(i))
		}
		h := NewHistory(org)
		var page []client.Activity
		for i := range 60 {
			votes := []client.Vote{vote("bot")}
			if r.IntN(2) == 0 {
				votes = append(votes, vote("alice", "tag-officer"))
			}
			page = append(page, transferTo(t, fmt.Sprint("act-", i), int64(r.IntN(22)), dests[r.IntN(len(dests))], keyAddr, votes...))
		}
		h.Add(page)
		var c review.Change
		i := r.IntN(len(ps))
		switch r.IntN(3) {
		case 0: // an update
			changed := policy(i)
			changed.ID = ps[i].ID
			c = review.Change{Before: &ps[i], After: &changed}
		case 1: // a delete
			c = review.Change{Before: &ps[i]}
		default: // a create
			created := policy(len(ps))
			c = review.Change{After: &created}
		}
		after := slices.DeleteFunc(slices.Clone(ps), func(p policyset.Policy) bool { return c.Before != nil && p.ID == c.Before.ID })
		if c.After != nil {
			after = append(after, *c.After)
		}
		whole := replayWhole(h, ps, after)
		sliced := h.Replay(ForChange(review.NewOrg(ps, nil), c))
		all := h.Replay(h.Whole(ps, after), nil)
		if !slices.Equal(whole.Moved, all.Moved) {
			t.Fatalf("round %d: only the changed versions' activities decided move %v, all decided %v", round, whole.Moved, all.Moved)
		}
		if !slices.Equal(whole.Moved, sliced.Moved) || whole.Replayed != sliced.Replayed {
			t.Fatalf("round %d: whole sets move %v (%d replayed), sliced %v (%d)\nbefore %q\nchange %+v", round, whole.Moved, whole.Replayed,
				sliced.Moved, sliced.Replayed, ps, c)
		}
		moved += len(whole.Moved)
	}
	if moved < 30 {
		t.Errorf("%d moves over 30 rounds: the test compares too little", moved)
	}
}
