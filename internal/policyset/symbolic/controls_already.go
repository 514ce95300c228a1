package symbolic

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// alreadyBatch is how many groups of allows one ControlAlready question
// asks about: enough to spread a circuit's fixed cost, few enough to keep
// each question small. A variable for the test that compares it with 1.
var alreadyBatch = 32

// alreadySliceCap ends a batch early once the union of its groups'
// slices holds this many policies: where many allows share a destination,
// each group's slice is already large, and a union of 32 such slices is
// the whole type, whose every integer constant each comparison must tell
// apart (ten shared destinations: 600 ms for one batch, against 60 for
// ten). Every allow is still asked about. A variable for the test that
// compares batches.
var alreadySliceCap = 64

// ControlAlready is the already-broken half of CheckControl: a request of
// typ, approved as the control says, that the organization as it is
// allows. It depends on the organization alone, so a command asks it once
// per type.
//
// A request is allowed only where some allow applies, so the question is
// asked about groups of allows with the same guards, about the requests
// where one of them applies, over the policies those guards admit
// (SliceByGuards), alreadyBatch groups to a circuit: the same answer as
// one question over the whole organization, without a formula of every
// policy at once (TestControlAlreadyBatched).
func ControlAlready(typ string, org []policyset.Policy, alone bool, rootIDs []string, b *Budget) Breach {
	return allowedByEach(b, typ, [][]policyset.Policy{org}, alone, rootIDs)
}

// ControlStill is a request of typ, approved as the control says, that
// both the organization as found and as a plan leaves it (left) allow:
// a breach that was there before the plan and that the plan does not
// mend. With ControlNewly's breaches (left allows, found does not), these
// are every breach of left, and the two never name the same request, so
// a plan that both keeps a breach and makes one says each once
// (TestControlStill).
func ControlStill(typ string, found, left []policyset.Policy, alone bool, rootIDs []string, b *Budget) Breach {
	return allowedByEach(b, typ, [][]policyset.Policy{left, found}, alone, rootIDs)
}

// allowedByEach finds a request of typ, approved as the control says,
// that every state (a list of policies) allows, its searches within b.
// Such a request is allowed by states[0], so some allow of it applies:
// the groups are its allows, and each state is sliced by a batch's
// guards (where a group's allow applies, what its guards leave out
// counts for nothing in any state).
func allowedByEach(b *Budget, typ string, states [][]policyset.Policy, alone bool, rootIDs []string) Breach {
	idx := make([]*GuardIndex, len(states))
	for i := range states {
		states[i] = canonical(states[i])
		idx[i] = NewGuardIndex(states[i])
	}
	var keys []string
	groups := map[string][]policyset.Policy{}
	for _, p := range states[0] {
		if p.Effect != client.EffectAllow || (alone && skipNeedingOthers && needsOthers(p.Consensus)) {
			continue
		}
		k := guardsOf(p).key()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	replay := func(r policyset.Request) bool {
		for _, s := range states {
			if policyset.Decide(s, r).Verdict != client.OutcomeAllow {
				return false
			}
		}
		return true
	}
	// Groups are asked alreadyBatch at a time, over the union of their
	// slices: where a group's allow applies, what its guards leave out
	// counts for nothing, so the union decides as the group's own slice
	// does, and one circuit serves many groups.
	for from := 0; from < len(keys); {
		var union, allows []policyset.Policy
		at := map[string]int{} // a policy's place in union, by its content
		members := make([][]int, len(states))
		inState := make([]map[int]bool, len(states))
		for s := range states {
			inState[s] = map[int]bool{}
		}
		for n := 0; from < len(keys) && n < alreadyBatch && (n == 0 || len(union) < alreadySliceCap); n++ {
			k := keys[from]
			from++
			for s := range states {
				for _, p := range idx[s].Slice(groups[k]) {
					key := policyKey(p)
					i, ok := at[key]
					if !ok {
						i = len(union)
						at[key] = i
						union = append(union, p)
					}
					if !inState[s][i] {
						inState[s][i] = true
						members[s] = append(members[s], i)
					}
				}
			}
			allows = append(allows, groups[k]...)
		}
		q := newQuestion(typ, append(slices.Clone(union), allows...), rootIDs)
		q.e.c.budget = b
		b, found := allowedIn(q, len(union), members, alone, replay)
		q.e.c.release()
		if found {
			return b
		}
	}
	return Breach{}
}

// policyKey tells policies apart by everything a decision or a message
// reads: two versions of one policy differ, and policies made by a plan,
// which have no id yet, are told apart by their text.
func policyKey(p policyset.Policy) string {
	return p.ID + "\x00" + p.Name + "\x00" + p.Effect + "\x00" + p.Condition + "\x00" + p.Consensus + "\x00" + p.Time
}

// atLeastApprovers is a consensus that asks only for a number of
// approvers.
var atLeastApprovers = regexp.MustCompile(`^\s*approvers\.count\(\)\s*>=\s*([0-9]+)\s*$`)

// skipNeedingOthers: ControlAlready leaves out the allows that need
// others (a variable for the test that compares it with asking them).
var skipNeedingOthers = true

// needsOthers tells whether an allow's consensus can never hold for one
// approver alone: approvers.count() >= k with k of 2 or more. Such an allow
// never allows a request alone, so the requests where it applies need not
// be asked about: one allowed there is allowed by another allow, and is
// asked about with that one's group. (The most common consensus; any
// other is asked about.)
func needsOthers(consensus string) bool {
	m := atLeastApprovers.FindStringSubmatch(consensus)
	if m == nil {
		return false
	}
	k, err := strconv.Atoi(m[1])
	return err == nil && k >= 2
}

// allowedIn asks q, whose first n policies are the union of the states'
// slices (members lists each state's places among them) and whose rest
// are a batch of allows, for a request approved as the control says (one
// non-root user when alone) that every state allows where one of the
// allows applies; found is false when there is none.
func allowedIn(q *question, n int, members [][]int, alone bool, replay func(policyset.Request) bool) (_ Breach, found bool) {
	var applies []lit
	for _, pl := range q.pols[n:] {
		applies = append(applies, pl.applies)
	}
	who := litTrue
	if alone {
		who = q.alone()
	}
	assume := []lit{who, q.e.c.or(applies...)}
	for _, places := range members {
		set := make([]member, len(places))
		for k, i := range places {
			set[k] = member{a: q.pols[i]}
		}
		assume = append(assume, q.verdict(set)[client.OutcomeAllow])
	}
	switch ans, model := q.e.c.solve(assume...); ans {
	case timedOut:
		return Breach{NotProved: q.e.c.notProved()}, true
	case sat:
		req, ok, why := q.bestWitness(assume, model, replay)
		if !ok {
			return Breach{NotProved: why}, true
		}
		return Breach{Already: &req}, true
	}
	return Breach{}, false
}
