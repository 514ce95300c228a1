package symbolic

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Counts past every internal bound, held to the engine. Enumeration
// cannot reach lists of 70,001 elements, so each case is one deny with a
// count beside an allow of its type, and the deny removed: the only move
// is from deny to allow, and some request makes it for every comparison
// here. The analysis must give it, proved with a witness that
// policyset.Decide replays or "not proved" with its reason, never
// silence; a witness of up to 150,001 user ids (70,001 approvers) must be
// built and proved; and a request at the threshold's edge that moves must
// be in a region of its move.

const deleteUsers = "ACTIVITY_TYPE_DELETE_USERS"

// countCase is a deny whose condition or consensus compares a count: %s
// is the comparison and the threshold ("> 70000").
type countCase struct {
	name            string
	condition, cons string
	// probe is a request whose list (the one counted) has n elements.
	probe func(n int) policyset.Request
	// proves is the longest witness the case must build: an approver
	// weighs two against maxWitnessElements (its map and its id).
	proves int64
	// probeUpTo is the largest threshold probed: the engine decides a
	// request of 65,536 approvers in a second under the race detector.
	probeUpTo int64
}

var countCases = []countCase{
	{name: "user_ids", condition: "activity.params.user_ids.count() %s",
		probe: func(n int) policyset.Request { return deleteOf(n) }, proves: 1000001, probeUpTo: 70000},
	{name: "filtered user_ids", condition: "activity.params.user_ids.filter(u, u != 'keep').count() %s",
		probe: func(n int) policyset.Request { return deleteOf(n) }, proves: 1000001, probeUpTo: 70000},
	{name: "approvers", proves: 70001, probeUpTo: countSlots + 1, cons: "approvers.count() %s", probe: func(n int) policyset.Request {
		req := deleteOf(1)
		req.Approvers = make([]policyset.User, max(n, 1))
		for i := range req.Approvers {
			req.Approvers[i].ID = fmt.Sprint("user-", i)
		}
		return req
	}},
	{name: "an approver's tags", proves: 150001, probeUpTo: countSlots + 1, cons: "approvers.any(a, a.tags.count() %s)", probe: func(n int) policyset.Request {
		req := deleteOf(1)
		req.Approvers = []policyset.User{{ID: "requester", Tags: slices.Repeat([]string{"t"}, n)}}
		return req
	}},
}

// deleteOf is a request to delete n users, each with the id "u".
func deleteOf(n int) policyset.Request {
	ids := make([]any, n)
	for i := range ids {
		ids[i] = "u"
	}
	return policyset.Request{Type: deleteUsers, Approvers: []policyset.User{{ID: "requester"}},
		Params: map[string]any{"user_ids": ids, "organization_id": "o"}}
}

// Thresholds at and past each bound: the slots a list's counts take
// exactly (countSlots), 2^16 (where counts were cut before), 10^6 (the
// largest a witness is promised for), the witness's cap
// (maxWitnessElements), int64.
var countThresholds = func() []*big.Int {
	var out []*big.Int
	for _, k := range []int64{countSlots - 2, countSlots - 1, countSlots, countSlots + 1, 1 << 16, 150000, 1000000,
		maxWitnessElements, maxWitnessElements + 1, 1 << 40} {
		out = append(out, big.NewInt(k))
	}
	return append(out, new(big.Int).Lsh(one, 70))
}()

func TestCountsPastTheSlots(t *testing.T) {
	allow := policyset.Policy{ID: "allow", Name: "deletes", Effect: client.EffectAllow, Condition: "activity.type == '" + deleteUsers + "'"}
	for _, c := range countCases {
		for _, k := range countThresholds {
			for _, op := range []string{">", ">=", "==", "!=", "<", "<=", "in"} {
				deny := policyset.Policy{ID: "deny", Name: "mass delete", Effect: client.EffectDeny, Condition: allow.Condition}
				cmp := op + " " + k.String()
				if op == "in" {
					cmp = "in [" + k.String() + "]"
				}
				if c.condition != "" {
					deny.Condition += " && " + fmt.Sprintf(c.condition, cmp)
				} else {
					deny.Consensus = fmt.Sprintf(c.cons, cmp)
				}
				t.Run(c.name+" "+cmp, func(t *testing.T) { checkCountCase(t, c, allow, deny, k, op) })
			}
		}
	}
}

func checkCountCase(t *testing.T, c countCase, allow, deny policyset.Policy, k *big.Int, op string) {
	before, after := []policyset.Policy{allow, deny}, []policyset.Policy{allow}
	rs, _, guarded := Regions(deleteUsers, before, after, []policyset.Policy{deny}, nil)
	if guarded {
		t.Fatal("a question ran past its time limit")
	}
	moves := map[[2]string]bool{}
	for _, r := range rs {
		moves[[2]string{r.Before, r.After}] = true
		if !r.Proved {
			if !strings.Contains(r.NotProved, "count") || !strings.Contains(r.NotProved, `"mass delete"`) {
				t.Errorf("%s -> %s is not proved without naming the count: %s", r.Before, r.After, r.NotProved)
			}
			continue
		}
		if x, y := policyset.Decide(before, r.Witness).Verdict, policyset.Decide(after, r.Witness).Verdict; x != r.Before || y != r.After {
			t.Errorf("the witness of %s -> %s decides %s -> %s", r.Before, r.After, x, y)
		}
	}
	deny2allow := [2]string{client.OutcomeDenyExplicit, client.OutcomeAllow}
	if !moves[deny2allow] {
		t.Fatalf("no region of %v: the removed deny applies to some request (regions %+v)", deny2allow, rs)
	}
	// The fewest elements a witness needs; up to c.proves it is built.
	need := new(big.Int)
	switch op {
	case ">":
		need.Add(k, one)
	case ">=", "==", "in":
		need.Set(k)
	}
	if need.Cmp(big.NewInt(c.proves)) <= 0 {
		for _, r := range rs {
			if [2]string{r.Before, r.After} == deny2allow && !r.Proved {
				t.Errorf("not proved where a witness of %s elements proves it: %s", need, r.NotProved)
			}
		}
	}
	// Requests at the threshold's edge, decided by the engine: each move
	// they make is a region's.
	if k.Cmp(big.NewInt(c.probeUpTo)) > 0 {
		return
	}
	n := int(k.Int64())
	for _, size := range []int{0, 1, n - 1, n, n + 1} {
		if size < 0 {
			continue
		}
		req := c.probe(size)
		x, y := policyset.Decide(before, req).Verdict, policyset.Decide(after, req).Verdict
		if x != y && !moves[[2]string{x, y}] {
			t.Errorf("a list of %d moves %s -> %s; no region says so", size, x, y)
		}
	}
}

// A finding is a universal claim: a deny on more than 70,000 user ids
// applies to a request of 70,001, which NeverApplies shows.
func TestFindingsPastTheSlots(t *testing.T) {
	deny := policyset.Policy{ID: "deny", Name: "mass delete", Effect: client.EffectDeny,
		Condition: "activity.type == '" + deleteUsers + "' && activity.params.user_ids.count() > 70000"}
	never, _, applying := NeverApplies(deny, nil, nil)
	if never || applying == nil {
		t.Fatalf("never applies %v, shown to apply to %v", never, applying != nil)
	}
	if ids, _ := applying.Params["user_ids"].([]any); len(ids) != 70001 {
		t.Errorf("the request it applies to has %d user ids", len(ids))
	}
}
