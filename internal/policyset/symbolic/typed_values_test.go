package symbolic

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Values only an uploaded ABI types (eth.tx.contract_call_args), typed by
// the constants they are compared with, held to the engine over every
// request of a small domain: each argument missing, at and around each
// constant, a string, a string of digits, a bool; the arguments map
// absent. Random changes of policies that compare them: every move the
// enumeration finds is a proved row, and every row is a move.

// typedAtom is a random comparison of the two arguments.
func typedAtom(r *rand.Rand) string {
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	switch r.IntN(4) {
	case 0, 1:
		return fmt.Sprintf("eth.tx.contract_call_args['wad'] %s %d", ops[r.IntN(len(ops))], []int{5, 10}[r.IntN(2)])
	case 2:
		return "eth.tx.contract_call_args['wad'] in [5, 10]"
	}
	return fmt.Sprintf("eth.tx.contract_call_args['kind'] %s '%s'", []string{"==", "!="}[r.IntN(2)], []string{"a", "b"}[r.IntN(2)])
}

func typedPolicy(r *rand.Rand, id string) policyset.Policy {
	p := policyset.Policy{ID: id, Name: id, Effect: client.EffectAllow, Condition: "activity.type == '" + diffType + "'"}
	if r.IntN(3) == 0 {
		p.Effect = client.EffectDeny
	}
	cond := typedAtom(r)
	if r.IntN(2) == 0 {
		cond = "(" + cond + " " + []string{"&&", "||"}[r.IntN(2)] + " " + typedAtom(r) + ")"
	}
	if r.IntN(4) == 0 {
		cond = "!" + cond
	}
	p.Condition += " && " + cond
	return p
}

// typedRequests are every request of the small domain.
func typedRequests(t *testing.T) []policyset.Request {
	wads := []any{nil, "abc", "5", true}
	for _, n := range []int64{0, 4, 5, 6, 9, 10, 11, 100} {
		wads = append(wads, big.NewInt(n))
	}
	kinds := []any{nil, "a", "b", "c", big.NewInt(5), "5"}
	var out []policyset.Request
	for _, absent := range []bool{true, false} {
		for _, w := range wads {
			for _, k := range kinds {
				if absent && (w != nil || k != nil) {
					continue
				}
				tx := map[string]any{"to": "0xaa", "value": big.NewInt(0), "chain_id": big.NewInt(1)}
				if !absent {
					args := map[string]any{}
					if w != nil {
						args["wad"] = w
					}
					if k != nil {
						args["kind"] = k
					}
					tx["contract_call_args"] = args
				}
				req := policyset.Request{Type: diffType, Approvers: []policyset.User{{ID: "requester"}}, PrivateKey: &policyset.PrivateKey{ID: "k"},
					Params: map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}}
				if err := req.SetKeyword("eth.tx", tx); err != nil {
					t.Fatal(err)
				}
				out = append(out, req)
			}
		}
	}
	return out
}

func TestTypedValuesDifferential(t *testing.T) {
	reqs := typedRequests(t)
	moved := 0
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var before []policyset.Policy
		for i := range 1 + r.IntN(3) {
			before = append(before, typedPolicy(r, fmt.Sprint("p", i)))
		}
		after := slices.Clone(before)
		after[r.IntN(len(after))] = typedPolicy(r, "changed")
		brute := map[[2]string]bool{}
		for _, req := range reqs {
			x, y := policyset.Decide(before, req).Verdict, policyset.Decide(after, req).Verdict
			if x != y {
				brute[[2]string{x, y}] = true
			}
		}
		got := provedPairs(t, seed, before, after)
		for pair := range brute {
			if !got[pair] {
				t.Fatalf("seed %d: enumeration finds %s -> %s, the analysis does not\nbefore %q\nafter %q", seed, pair[0], pair[1], before, after)
			}
		}
		for pair := range got {
			if !brute[pair] {
				t.Errorf("seed %d: the analysis proves %s -> %s, which no request of the domain makes: the domain misses a value", seed, pair[0], pair[1])
			}
		}
		if len(brute) > 0 {
			moved++
		}
	}
	if moved < 50 {
		t.Errorf("only %d of 200 changes move a request: the test compares too little", moved)
	}
}

// TestTypedValueRaisedCap: the case. A WETH-unwrap deny's cap
// raised from 10 to 100 ETH is one proved row, DENY_EXPLICIT -> ALLOW,
// whose witness unwraps between the caps; compared with constants of two
// kinds, the value stays over-approximated and named.
func TestTypedValueRaisedCap(t *testing.T) {
	cond := "activity.type == '" + diffType + "'"
	allow := policyset.Policy{ID: "a", Name: "unwraps", Effect: client.EffectAllow, Condition: cond}
	deny := policyset.Policy{ID: "d", Name: "unwrap cap", Effect: client.EffectDeny, Condition: cond + " && eth.tx.contract_call_args['wad'] > 10000000000000000000"}
	raised := deny
	raised.Condition = cond + " && eth.tx.contract_call_args['wad'] > 100000000000000000000"
	rs, _, _ := Regions(diffType, []policyset.Policy{allow, deny}, []policyset.Policy{allow, raised}, []policyset.Policy{deny, raised}, nil)
	if len(rs) != 1 || !rs[0].Proved || rs[0].Before != client.OutcomeDenyExplicit || rs[0].After != client.OutcomeAllow {
		t.Fatalf("want one proved DENY_EXPLICIT -> ALLOW row, got %+v", rs)
	}
	tx, _ := rs[0].Witness.Keyword("eth.tx")
	m, _ := tx.(map[string]any)
	args, _ := m["contract_call_args"].(map[string]any)
	wad, _ := args["wad"].(*big.Int)
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil)
	if wad == nil || wad.Cmp(ten) <= 0 || wad.Cmp(new(big.Int).Mul(ten, big.NewInt(10))) > 0 {
		t.Errorf("the witness should unwrap more than 10 and at most 100 ETH: %v", m)
	}

	mixed := raised
	mixed.Condition += " && eth.tx.contract_call_args['wad'] != 'max'"
	rs, _, _ = Regions(diffType, []policyset.Policy{allow, deny}, []policyset.Policy{allow, mixed}, []policyset.Policy{deny, mixed}, nil)
	named := false
	for _, r := range rs {
		named = named || (!r.Proved && r.NotProved != "")
	}
	if !named {
		t.Errorf("compared with an integer and a string, wad is over-approximated and its rows say so: %+v", rs)
	}
}

// TestTypedValueNotByDigits: a string constant of digits equals an
// integer value (the engine compares them as numbers), which the string
// model has no class for: such a comparison is not typed.
func TestTypedValueNotByDigits(t *testing.T) {
	for cond, typed := range map[string]bool{
		"eth.tx.contract_call_args['kind'] == 'a'":         true,
		"eth.tx.contract_call_args['kind'] == '5'":         false,
		"eth.tx.contract_call_args['kind'] in ['a', '12']": false,
		"eth.tx.contract_call_args['wad'] <= 12":           true,
	} {
		pf := readPolicy(policyset.Policy{ID: "p", Effect: client.EffectDeny, Condition: cond}, new(int), false)
		if pf.cond == nil {
			t.Fatalf("%s: refused", cond)
		}
		if got := pf.cond.op == fCmp && pf.cond.untyped != nil; got != typed {
			t.Errorf("%s: typed %v, want %v", cond, got, typed)
		}
	}
}

// provedPairs are the verdict pairs of the regions between before and
// after, each of which must be proved (its witness replayed), with no
// question past its guard.
func provedPairs(t *testing.T, seed uint64, before, after []policyset.Policy) map[[2]string]bool {
	t.Helper()
	rs, _, guarded := Regions(diffType, before, after, changedVersions(before, after), nil)
	if guarded {
		t.Fatalf("seed %d: guarded", seed)
	}
	got := map[[2]string]bool{}
	for _, reg := range rs {
		if !reg.Proved {
			t.Fatalf("seed %d: %s -> %s not proved (%s)\nbefore %q\nafter %q", seed, reg.Before, reg.After, reg.NotProved, before, after)
		}
		got[[2]string{reg.Before, reg.After}] = true
	}
	return got
}
