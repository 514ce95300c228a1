package symbolic

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Counts of one list with different filters, past the slots, decided
// together (count_classes.go). Each case is a deny beside an allow of its
// type, and the deny removed: the deny applies to some request exactly
// when its move from deny to allow is a region.
func TestCountsByClassPastTheSlots(t *testing.T) {
	const ids = "activity.params.user_ids"
	a, notA := ids+".filter(u, u == 'a').count()", ids+".filter(u, u != 'a').count()"
	for _, c := range []struct {
		cond  string
		moves bool
		// elements is the fewest user ids of a request the deny applies
		// to.
		elements int
	}{
		// More than 100 'a' and fewer than 101 in all: none.
		{cond: a + " > 100 && " + ids + ".count() < 101"},
		{cond: a + " > 100 && " + ids + ".count() < 102", moves: true, elements: 101},
		// More than 1,000 of each, fewer than 2,002 in all: none.
		{cond: a + " > 1000 && " + notA + " > 1000 && " + ids + ".count() < 2002"},
		{cond: a + " > 1000 && " + notA + " > 1000 && " + ids + ".count() <= 2002", moves: true, elements: 2002},
		// Counts that must be equal, and one that must be above both.
		{cond: a + " == 70000 && " + ids + ".count() == 70000 && " + notA + " > 0"},
		{cond: a + " == 70000 && " + ids + ".count() == 70001 && " + notA + " > 0", moves: true, elements: 70001},
		// A count at 10^6 beside another of the same list.
		{cond: a + " >= 1000000 && " + ids + ".count() <= 1000000", moves: true, elements: 1000000},
		{cond: a + " >= 1000000 && " + ids + ".count() < 1000000"},
		// Beside an all and an index, which every further element keeps.
		{cond: a + " > 100 && " + ids + ".all(u, u == 'a' || u == 'b') && " + ids + "[0] == 'b' && " + notA + " < 2",
			moves: true, elements: 102},
		{cond: a + " > 100 && " + ids + ".all(u, u == 'a') && " + ids + "[0] == 'b'"},
	} {
		t.Run(c.cond, func(t *testing.T) {
			allow := policyset.Policy{ID: "allow", Name: "deletes", Effect: client.EffectAllow, Condition: "activity.type == '" + deleteUsers + "'"}
			deny := policyset.Policy{ID: "deny", Name: "mass delete", Effect: client.EffectDeny, Condition: allow.Condition + " && " + c.cond}
			before, after := []policyset.Policy{allow, deny}, []policyset.Policy{allow}
			rs, _, guarded := Regions(deleteUsers, before, after, []policyset.Policy{deny}, nil)
			if guarded {
				t.Fatal("a question ran past its time limit")
			}
			if !c.moves && len(rs) > 0 {
				t.Fatalf("no request has these counts, yet %d regions: %s %s", len(rs), rs[0].NotProved, rs[0].Words())
			}
			if c.moves && len(rs) != 1 {
				t.Fatalf("%d regions, want the deny's removal: %+v", len(rs), rs)
			}
			for _, r := range rs {
				if !r.Proved {
					t.Fatalf("not proved: %s", r.NotProved)
				}
				if x, y := policyset.Decide(before, r.Witness).Verdict, policyset.Decide(after, r.Witness).Verdict; x != r.Before || y != r.After {
					t.Errorf("the witness of %s -> %s decides %s -> %s", r.Before, r.After, x, y)
				}
				if got, _ := r.Witness.Params["user_ids"].([]any); len(got) != c.elements {
					t.Errorf("the witness has %d user ids, want the fewest, %d", len(got), c.elements)
				}
			}
		})
	}
}

// TestDifferentialCountClasses: with countSlots 0 every count is past the
// slots, and a list with at most maxCountedFilters filters is counted by
// class. Random sets of policies over counts of one list, with filters,
// an all, an any and an index, are held to every list of a, b and z up to
// five elements: each move enumeration finds is a region, every region
// is proved where the list is counted by class, and every witness
// replays.
func TestDifferentialCountClasses(t *testing.T) {
	defer func(n int64) { countSlots = n }(countSlots)
	countSlots = 0
	var reqs []policyset.Request
	lists := [][]any{{}}
	for n := 1; n <= 5; n++ {
		for _, l := range lists {
			if len(l) == n-1 {
				for _, v := range []string{"a", "b", "z"} {
					lists = append(lists, append(append([]any{}, l...), v))
				}
			}
		}
	}
	for _, l := range lists {
		reqs = append(reqs, policyset.Request{Type: deleteUsers, Approvers: []policyset.User{{ID: "requester"}},
			Params: map[string]any{"user_ids": l, "organization_id": "o"}})
	}
	classed, proved := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		before, after, filters := countClassSets(seed)
		brute := map[[2]string]policyset.Request{}
		for _, req := range reqs {
			x, y := policyset.Decide(before, req).Verdict, policyset.Decide(after, req).Verdict
			if _, seen := brute[[2]string{x, y}]; x != y && !seen {
				brute[[2]string{x, y}] = req
			}
		}
		rs, _, guarded := Regions(deleteUsers, before, after, changedVersions(before, after), nil)
		if guarded {
			t.Fatalf("seed %d: a question ran past its time limit", seed)
		}
		byClass := filters <= maxCountedFilters
		if byClass {
			classed++
		}
		found := map[[2]string]bool{}
		for _, r := range rs {
			found[[2]string{r.Before, r.After}] = true
			if !r.Proved {
				if byClass {
					t.Errorf("seed %d: %s -> %s not proved (%s)\nbefore %q\nafter %q", seed, r.Before, r.After, r.NotProved, before, after)
				}
				continue
			}
			proved++
			if x, y := policyset.Decide(before, r.Witness).Verdict, policyset.Decide(after, r.Witness).Verdict; x != r.Before || y != r.After {
				t.Errorf("seed %d: the witness of %s -> %s decides %s -> %s", seed, r.Before, r.After, x, y)
			}
		}
		for pair, req := range brute {
			if !found[pair] {
				t.Errorf("seed %d: %v moves %s -> %s; no region says so\nbefore %q\nafter %q", seed, req.Params["user_ids"], pair[0], pair[1], before, after)
			}
		}
	}
	t.Logf("%d cases of 60 counted by class, %d regions proved", classed, proved)
	if classed < 30 || proved < 60 {
		t.Errorf("%d cases counted by class, %d regions proved: the test compares too little", classed, proved)
	}
}

// countClassSets are two random sets of policies on deleteUsers whose
// conditions compare counts of user_ids, and how many filters they
// count the list with.
func countClassSets(seed uint64) (before, after []policyset.Policy, filters int) {
	r := rand.New(rand.NewPCG(seed, 7))
	const ids = "activity.params.user_ids"
	counts := []string{ids + ".count()", ids + ".filter(u, u == 'a').count()", ids + ".filter(u, u != 'b').count()",
		ids + ".filter(u, u == 'a' || u == 'z').count()"}
	others := []string{ids + ".all(u, u != 'z')", ids + ".any(u, u == 'b')", ids + "[0] == 'a'"}
	ops := []string{">", ">=", "==", "!=", "<", "<="}
	used := map[string]bool{}
	atom := func() string {
		if r.IntN(4) == 0 {
			return others[r.IntN(len(others))]
		}
		c := counts[r.IntN(len(counts))]
		used[c] = true
		return fmt.Sprintf("%s %s %d", c, ops[r.IntN(len(ops))], r.IntN(4))
	}
	policy := func(i int) policyset.Policy {
		cond := atom()
		for range r.IntN(2) {
			join := " && "
			if r.IntN(3) == 0 {
				join = " || "
			}
			cond = "(" + cond + join + atom() + ")"
		}
		if r.IntN(4) == 0 {
			cond = "!" + cond
		}
		effect := client.EffectAllow
		if r.IntN(2) == 0 {
			effect = client.EffectDeny
		}
		return policyset.Policy{ID: fmt.Sprint("p", i), Name: fmt.Sprint("policy ", i), Effect: effect,
			Condition: "activity.type == '" + deleteUsers + "' && " + cond}
	}
	for i := range 1 + r.IntN(3) {
		before = append(before, policy(i))
	}
	after = append(after, before[1:]...)
	after = append(after, policy(len(before)))
	for c := range used {
		if strings.Contains(c, "count") {
			filters++
		}
	}
	return before, after, filters
}
