package symbolic

import (
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// limitChange is a random organization whose policies end with a range on
// eth.tx.value (most of them), and one policy's range constant changed:
// the change bands are made for.
func limitChange(seed uint64) (before, after []policyset.Policy, changed int) {
	g := newGen(seed)
	ops := []string{"<=", "<", ">=", ">"}
	n := 2 + g.r.IntN(4)
	for i := range n {
		p := g.policy(fmt.Sprint("p", i))
		if g.r.IntN(4) > 0 {
			rng := fmt.Sprintf("eth.tx.value %s %d", g.pick(ops), valueConsts[g.r.IntN(len(valueConsts))])
			if p.Condition == "" {
				p.Condition = rng
			} else {
				p.Condition = "(" + p.Condition + ") && " + rng
			}
		}
		before = append(before, p)
	}
	after = slices.Clone(before)
	changed = g.r.IntN(n)
	c := after[changed].Condition
	for _, pair := range [][2]string{{"5", "10"}, {"10", "5"}} {
		if len(c) > len(pair[0]) && c[len(c)-len(pair[0]):] == pair[0] && c[len(c)-len(pair[0])-1] == ' ' {
			after[changed].Condition = c[:len(c)-len(pair[0])] + pair[1]
			break
		}
	}
	return before, after, changed
}

// TestBandsExact: a limit changed is asked only where its versions differ,
// over the others as they decide there; every move enumeration finds is
// still a proved region whose words its witness satisfies, and the
// controls' and the findings' answers are those asked without bands.
func TestBandsExact(t *testing.T) {
	banded := 0
	for seed := uint64(1); seed <= 50; seed++ {
		before, after, k := limitChange(seed)
		if before[k].Condition == after[k].Condition {
			continue
		}
		if _, ok := bandOf(canonical([]policyset.Policy{before[k], after[k]})); ok {
			banded++
		}
		brute := enumeratedMoves(before, after)
		if why := checkRegions(seed, before, after, brute, false); why != "" {
			t.Fatal(why)
		}
		change := Counted{Before: &before[k], After: &after[k]}
		for _, alone := range []bool{true, false} {
			state := ControlState{Org: before, Counted: []Counted{change}}
			with := ControlNewly(diffType, state, &state, &change, alone, nil)
			bandOff = true
			without := ControlNewly(diffType, state, &state, &change, alone, nil)
			bandOff = false
			if (with.Newly != nil) != (without.Newly != nil) || with.NotProved != without.NotProved {
				t.Fatalf("seed %d alone %v: with bands %+v, without %+v\nbefore %q\nafter %q", seed, alone, with, without, before, after)
			}
		}
		for _, p := range after {
			with := Redundant(p, after, nil, nil)
			bandOff = true
			without := Redundant(p, after, nil, nil)
			bandOff = false
			if with != without {
				t.Fatalf("seed %d: %s redundant %v with bands, %v without\nset %q", seed, p.ID, with, without, after)
			}
		}
	}
	if banded < 20 {
		t.Errorf("only %d changes were banded: the test compares too little", banded)
	}
}

// TestSymmetricHull: the band of two ranges is the hull of the values in
// exactly one of them, checked against every integer of a small domain.
func TestSymmetricHull(t *testing.T) {
	ends := []*big.Int{nil, big.NewInt(0), big.NewInt(3), big.NewInt(5), big.NewInt(8)}
	in := func(v int64, lo, hi *big.Int) bool {
		return (lo == nil || lo.Int64() <= v) && (hi == nil || v <= hi.Int64())
	}
	for _, lb := range ends {
		for _, hb := range ends {
			for _, la := range ends {
				for _, ha := range ends {
					lo, hi, ok := symmetricHull(lb, hb, la, ha)
					for v := int64(-3); v <= 11; v++ {
						differs := in(v, lb, hb) != in(v, la, ha)
						if differs && (!ok || !in(v, lo, hi)) {
							t.Fatalf("[%v, %v] and [%v, %v] differ at %d, outside the band [%v, %v] (ok %v)", lb, hb, la, ha, v, lo, hi, ok)
						}
					}
				}
			}
		}
	}
}

// TestBandTwoCreated: two policies created together move verdicts wherever
// either applies, not only where their ranges differ: no band of their
// difference may leave out the allow by two that decides below both.
func TestBandTwoCreated(t *testing.T) {
	byTwo := policyset.Policy{ID: "d", Name: "d", Effect: "EFFECT_ALLOW", Condition: "eth.tx.value < 5", Consensus: "approvers.count() >= 2"}
	a := policyset.Policy{ID: "a", Name: "a", Effect: "EFFECT_ALLOW", Condition: "eth.tx.value <= 5"}
	b := policyset.Policy{ID: "b", Name: "b", Effect: "EFFECT_ALLOW", Condition: "eth.tx.value <= 10"}
	before, after := []policyset.Policy{byTwo}, []policyset.Policy{byTwo, a, b}
	brute := enumeratedMoves(before, after)
	if len(brute) == 0 {
		t.Fatal("enumeration finds no move")
	}
	rs, _, _ := Regions(diffType, before, after, []policyset.Policy{a, b}, nil)
	for _, r := range rs {
		if !r.Proved {
			t.Errorf("%s -> %s not proved: %s", r.Before, r.After, r.NotProved)
		}
	}
	if why := checkRegions(0, before, after, brute, false); why != "" {
		t.Error(why)
	}
}

// TestBandGuards: within a change's guarded values, another policy's
// guard is left out where it names none of them, read as true where it
// names them all, and kept as written otherwise; the regions are still
// every move enumeration finds.
func TestBandGuards(t *testing.T) {
	const tx = "activity.type == '" + diffType + "' && "
	allowBoth := policyset.Policy{ID: "bc", Name: "bc", Effect: "EFFECT_ALLOW", Condition: tx + "eth.tx.to in ['0xbb', '0xcc'] && eth.tx.value <= 10"}
	denyB := policyset.Policy{ID: "deny-b", Name: "deny-b", Effect: "EFFECT_DENY", Condition: tx + "eth.tx.to == '0xbb'"}
	byTwo := policyset.Policy{ID: "two", Name: "two", Effect: "EFFECT_ALLOW", Condition: tx + "eth.tx.to in ['0xaa', '0xbb'] && eth.tx.value <= 10", Consensus: "approvers.count() >= 2"}
	mine := policyset.Policy{ID: "mine", Name: "mine", Effect: "EFFECT_ALLOW", Condition: tx + "eth.tx.to in ['0xaa', '0xbb'] && eth.tx.value <= 5", Consensus: "approvers.count() >= 2"}
	raised := mine
	raised.Condition = tx + "eth.tx.to in ['0xaa', '0xbb'] && eth.tx.value <= 100"
	bd, ok := bandOf([]policyset.Policy{mine, raised})
	if !ok || bd.path != "eth.tx.value" || !slices.Equal(bd.strs["eth.tx.to"], []string{"0xaa", "0xbb"}) {
		t.Fatalf("band %+v %v", bd, ok)
	}
	// The type is the band's too: every version names it.
	if _, keep := bd.within(policyset.Policy{Effect: "EFFECT_ALLOW", Condition: tx + "eth.tx.to == '0xcc'"}); keep {
		t.Error("a policy of another address is kept within the band")
	}
	if got, keep := bd.within(allowBoth); !keep || got.Condition != "(eth.tx.to in ['0xbb', '0xcc']) && (eth.tx.value <= 10)" {
		t.Errorf("the allow of 0xbb and 0xcc within the band: %q (kept %v)", got.Condition, keep)
	}
	if got, keep := bd.within(denyB); !keep || got.Condition != "(eth.tx.to == '0xbb')" {
		t.Errorf("the deny of one address within the band: %q (kept %v)", got.Condition, keep)
	}
	if got, keep := bd.within(byTwo); !keep || got.Condition != "(eth.tx.value <= 10)" {
		t.Errorf("the allow of both addresses within the band: %q (kept %v)", got.Condition, keep)
	}
	before := []policyset.Policy{allowBoth, denyB, byTwo, mine}
	after := []policyset.Policy{allowBoth, denyB, byTwo, raised}
	brute := enumeratedMoves(before, after)
	if why := checkRegions(0, before, after, brute, false); why != "" {
		t.Error(why)
	}
}
