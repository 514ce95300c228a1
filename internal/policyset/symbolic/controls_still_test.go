package symbolic

import (
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestControlStill holds ControlStill to the enumeration of the small
// domain: it finds a breach exactly when some request is allowed both
// before and after a random change (alone, or by any approvers), and its
// witness is one; and with ControlNewly's it covers every breach of the
// state after (ControlAlready), so that the plan's two judgments between
// them miss none.
func TestControlStill(t *testing.T) {
	defer func(b, c int) { alreadyBatch, alreadySliceCap = b, c }(alreadyBatch, alreadySliceCap)
	kept, cases := 0, 0
	for seed := uint64(1); seed <= 80; seed++ {
		g := newGen(seed)
		before, after := g.policySets()
		all := requests(append(slices.Clone(before), after...))
		for _, alone := range []bool{true, false} {
			// Small batches too, so that a batch's union of slices is
			// exercised across both states.
			alreadyBatch, alreadySliceCap = 32, 64
			if seed%3 == 0 {
				alreadyBatch, alreadySliceCap = 1, 2
			}
			still := ControlStill(diffType, before, after, alone, nil, nil)
			if still.NotProved != "" {
				continue
			}
			cases++
			want := false
			for _, r := range all {
				if (!alone || len(r.Approvers) == 1) && allows(before, r) && allows(after, r) {
					want = true
					break
				}
			}
			if (still.Already != nil) != want {
				t.Fatalf("seed %d alone %v: ControlStill found %v, the enumeration %v\nbefore %q\nafter %q", seed, alone, still.Already, want, before, after)
			}
			if still.Already != nil {
				kept++
				if r := *still.Already; !allows(before, r) || !allows(after, r) || (alone && len(r.Approvers) != 1) {
					t.Fatalf("seed %d alone %v: witness %+v is not allowed both before and after", seed, alone, r)
				}
			}
			newly := ControlNewly(diffType, ControlState{Org: before, Counted: countedBetween(before, after)}, nil, nil, alone, nil)
			broken := ControlAlready(diffType, after, alone, nil, nil)
			if newly.NotProved != "" || broken.NotProved != "" {
				continue
			}
			// ControlNewly judges the most permissive state, which allows at
			// least what after does: every breach after is one or the other.
			if broken.Already != nil && newly.Newly == nil && still.Already == nil {
				t.Fatalf("seed %d alone %v: after breaks %v, but newly %v and still %v\nbefore %q\nafter %q", seed, alone,
					broken.Already != nil, newly.Newly != nil, still.Already != nil, before, after)
			}
		}
	}
	if kept == 0 || cases < 100 {
		t.Errorf("%d cases, %d with a breach kept: the test compares too little", cases, kept)
	}
}

// allows tells whether ps allow r.
func allows(ps []policyset.Policy, r policyset.Request) bool {
	return policyset.Decide(ps, r).Verdict == client.OutcomeAllow
}

// countedBetween is the change from before to after as counted changes, by
// id: one pair per id either side has.
func countedBetween(before, after []policyset.Policy) []Counted {
	byID := func(ps []policyset.Policy, id string) *policyset.Policy {
		for i := range ps {
			if ps[i].ID == id {
				return &ps[i]
			}
		}
		return nil
	}
	var out []Counted
	for _, p := range before {
		if a := byID(after, p.ID); a == nil || *a != p {
			out = append(out, Counted{Before: byID(before, p.ID), After: a})
		}
	}
	for _, p := range after {
		if byID(before, p.ID) == nil {
			out = append(out, Counted{After: byID(after, p.ID)})
		}
	}
	return out
}
