package symbolic

import (
	"fmt"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

func TestNeedsOthers(t *testing.T) {
	for consensus, want := range map[string]bool{
		"approvers.count() >= 2": true, " approvers.count()>=3 ": true, "approvers.count() >= 1": false,
		"approvers.count() >= 2 || approvers.any(u, u.id == 'x')": false, "approvers.count() > 1": false, "": false,
	} {
		if got := needsOthers(consensus); got != want {
			t.Errorf("needsOthers(%q) = %v, want %v", consensus, got, want)
		}
	}
}

// TestControlAlreadySkipsAllowsNeedingOthers: leaving out the allows that
// need two approvers finds what asking them finds, over random
// organizations each given such an allow beside its random policies.
func TestControlAlreadySkipsAllowsNeedingOthers(t *testing.T) {
	defer func() { skipNeedingOthers = true }()
	broken := 0
	for seed := uint64(1); seed <= 60; seed++ {
		g := newGen(seed)
		g.guarded = true
		org := []policyset.Policy{{ID: "two", Name: "two", Effect: client.EffectAllow,
			Condition: "activity.type == '" + diffType + "'", Consensus: "approvers.count() >= 2"}}
		for i := range 2 + g.r.IntN(5) {
			org = append(org, g.policy(fmt.Sprint("p", i)))
		}
		skipNeedingOthers = true
		fast := ControlAlready(diffType, org, true, nil, nil)
		skipNeedingOthers = false
		full := ControlAlready(diffType, org, true, nil, nil)
		if (fast.Already != nil) != (full.Already != nil) || (fast.NotProved == "") != (full.NotProved == "") {
			t.Fatalf("seed %d: skipping %+v, asking %+v\norg %q", seed, fast, full, org)
		}
		if full.Already != nil {
			broken++
		}
	}
	if broken == 0 {
		t.Error("no organization was broken: the test compares nothing")
	}
	for consensus, want := range map[string]bool{"approvers.count() >= 1": true, "approvers.count() >= 2": false} {
		org := []policyset.Policy{{ID: "a", Name: "a", Effect: client.EffectAllow, Condition: "activity.type == '" + diffType + "'", Consensus: consensus}}
		skipNeedingOthers = true
		if got := ControlAlready(diffType, org, true, nil, nil); (got.Already != nil) != want {
			t.Errorf("an allow whose consensus is %q: broken %v, want %v", consensus, got.Already != nil, want)
		}
	}
}

// TestControlNewlySkipsAllowsNeedingOthers: leaving the allows that need
// two approvers out of "newly allowed alone" (and a change of such allows
// alone unasked) finds what asking them finds, over random organizations
// and changes, some of them to or from an allow that needs others.
func TestControlNewlySkipsAllowsNeedingOthers(t *testing.T) {
	defer func() { skipNeedingOthers = true }()
	broken, skipped := 0, 0
	two := func(id string, g gen) policyset.Policy {
		p := g.policy(id)
		p.Effect, p.Consensus = client.EffectAllow, "approvers.count() >= 2"
		return p
	}
	for seed := uint64(1); seed <= 80; seed++ {
		g := newGen(seed)
		org := []policyset.Policy{two("two", g)}
		for i := range 2 + g.r.IntN(4) {
			org = append(org, g.policy(fmt.Sprint("p", i)))
		}
		k := g.r.IntN(len(org))
		after := g.policy(org[k].ID)
		switch seed % 3 {
		case 0:
			after = two(org[k].ID, g)
		case 1:
			org[k] = two(org[k].ID, g)
		}
		change := Counted{Before: &org[k], After: &after}
		if !countsAlone(org[k]) && !countsAlone(after) {
			skipped++
		}
		state := ControlState{Org: org, Counted: []Counted{change}}
		skipNeedingOthers = true
		fast := ControlNewly(diffType, state, &state, &change, true, nil)
		skipNeedingOthers = false
		full := ControlNewly(diffType, state, &state, &change, true, nil)
		if (fast.Newly != nil) != (full.Newly != nil) || (fast.NotProved == "") != (full.NotProved == "") {
			t.Fatalf("seed %d: skipping %+v, asking %+v\norg %q\nafter %q", seed, fast, full, org, after)
		}
		if full.Newly != nil {
			broken++
		}
	}
	if broken == 0 || skipped == 0 {
		t.Errorf("%d changes broke the control, %d were of allows needing others alone: the test compares too little", broken, skipped)
	}
}
