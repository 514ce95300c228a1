package symbolic

import (
	"fmt"
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

func TestSliceByGuards(t *testing.T) {
	pol := func(id, cond string) policyset.Policy {
		return policyset.Policy{ID: id, Effect: "EFFECT_ALLOW", Condition: cond}
	}
	const tx = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && "
	org := []policyset.Policy{
		pol("to-a", tx+"eth.tx.to == '0xa' && eth.tx.value <= 5"),
		pol("to-b", tx+"(eth.tx.to == '0xb' && eth.tx.value <= 5)"),
		pol("to-a-or-c", tx+"eth.tx.to in ['0xa', '0xc']"),
		pol("to-any", tx+"eth.tx.value <= 5"),
		pol("to-not-b", tx+"eth.tx.to != '0xb'"),
		pol("maybe-b", tx+"(eth.tx.to == '0xb' || eth.tx.value > 9)"),
		pol("chain-1", tx+"eth.tx.chain_id == 1"),
		pol("chain-2-quoted", tx+"eth.tx.chain_id == '2'"),
		pol("broken", "this is not an expression"),
	}
	ids := func(ps []policyset.Policy) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	for _, c := range []struct {
		name    string
		changed []policyset.Policy
		want    []string
	}{
		{"a change to 0xa meets the policies that can apply to 0xa", []policyset.Policy{pol("x", tx+"eth.tx.to == '0xa' && eth.tx.value <= 7")},
			[]string{"to-a", "to-a-or-c", "to-any", "to-not-b", "maybe-b", "chain-1", "chain-2-quoted", "broken"}},
		{"two versions: the union of their values", []policyset.Policy{pol("x", tx+"eth.tx.to == '0xa'"), pol("x", tx+"eth.tx.to == '0xb'")},
			[]string{"to-a", "to-b", "to-a-or-c", "to-any", "to-not-b", "maybe-b", "chain-1", "chain-2-quoted", "broken"}},
		{"a version without the guard keeps them all", []policyset.Policy{pol("x", tx+"eth.tx.to == '0xa'"), pol("x", tx+"eth.tx.value > 1")},
			ids(org)},
		{"integers by value: a quoted number counts as that int", []policyset.Policy{pol("x", tx+"eth.tx.chain_id == 2")},
			[]string{"to-a", "to-b", "to-a-or-c", "to-any", "to-not-b", "maybe-b", "chain-2-quoted", "broken"}},
		{"nothing changed, nothing left out", nil, ids(org)},
	} {
		if got := ids(SliceByGuards(org, c.changed)); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
		// The index answers alike, also for policies added after it was
		// first asked.
		x := NewGuardIndex(org[:4])
		x.Slice(c.changed)
		for _, p := range org[4:] {
			x.Add(p)
		}
		if got := ids(x.Slice(c.changed)); !slices.Equal(got, c.want) {
			t.Errorf("%s, by the index:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
}

// TestControlAlreadyBatched: asking many groups of allows in one circuit
// over the union of their slices finds what asking each group alone
// finds, over random organizations with guarded policies.
func TestControlAlreadyBatched(t *testing.T) {
	defer func(b int) { alreadyBatch = b }(alreadyBatch)
	broken := 0
	for seed := uint64(1); seed <= 60; seed++ {
		g := newGen(seed)
		g.guarded = true
		var org []policyset.Policy
		for i := range 3 + g.r.IntN(6) {
			org = append(org, g.policy(fmt.Sprint("p", i)))
		}
		for _, alone := range []bool{true, false} {
			alreadyBatch = 32
			batched := ControlAlready(diffType, org, alone, nil, nil)
			alreadySliceCap = 2
			capped := ControlAlready(diffType, org, alone, nil, nil)
			alreadySliceCap = 64
			alreadyBatch = 1
			each := ControlAlready(diffType, org, alone, nil, nil)
			if (batched.Already != nil) != (each.Already != nil) || (batched.NotProved == "") != (each.NotProved == "") {
				t.Fatalf("seed %d alone %v: batched %+v, each group %+v\norg %q", seed, alone, batched, each, org)
			}
			if (capped.Already != nil) != (each.Already != nil) || (capped.NotProved == "") != (each.NotProved == "") {
				t.Fatalf("seed %d alone %v: batches capped at 2 policies %+v, each group %+v\norg %q", seed, alone, capped, each, org)
			}
			if each.Already != nil {
				broken++
			}
		}
	}
	if broken == 0 {
		t.Error("no organization was broken: the test compares nothing")
	}
}

// TestMayApplyByTheTypeGuard: a condition's activity.type conjunct picks
// the types MayApply asks about; the answer is the one asking every
// type of the catalogue gives.
func TestMayApplyByTheTypeGuard(t *testing.T) {
	for _, cond := range []string{
		"activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 10",
		"activity.type in ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2', 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'] && private_key.tags.contains('x')",
		"eth.tx.value <= 10 && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
		"activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY' && eth.tx.value <= 10",
		"activity.resource == 'PRIVATE_KEY'",
		"activity.type != 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
	} {
		p := policyset.Policy{ID: "p", Effect: "EFFECT_ALLOW", Condition: cond}
		pf := readPolicy(p, new(int), false)
		reads := map[string]bool{}
		topReads(pf.cond, reads)
		var want []string
		for _, typ := range PolicyTypes {
			if activityValue(pf.cond, typ) != tvFalse && !readsAbsent(reads, typ) {
				want = append(want, typ)
			}
		}
		if got := MayApply(p); !slices.Equal(got, want) {
			t.Errorf("%s: MayApply %v, want %v", cond, got, want)
		}
	}
	if got := MayApply(policyset.Policy{ID: "q", Effect: "EFFECT_ALLOW",
		Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 10"}); !slices.Equal(got,
		[]string{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}) {
		t.Errorf("a transfer limit may apply to %v, want the transaction type alone", got)
	}
}
