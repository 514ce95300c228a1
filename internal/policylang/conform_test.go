package policylang

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func pow2(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

// intAt is the integer at the path of fields in a conformed struct.
func intAt(t *testing.T, v any, fields ...string) *big.Int {
	t.Helper()
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v is no struct, looking for %s", v, f)
		}
		v = m[f]
	}
	n, ok := v.(*big.Int)
	if !ok {
		t.Fatalf("%v (%T) is no *big.Int", v, v)
	}
	return n
}

// TestConformIntegers: integers come as *big.Int from every form a caller
// has (a Go integer, a JSON number, a decimal string), exactly, and an
// integer outside its type's range is refused, naming the path.
func TestConformIntegers(t *testing.T) {
	oneEthPlusOne, _ := new(big.Int).SetString("1000000000000000001", 10)
	for _, tc := range []struct {
		name string
		in   any
		want *big.Int
	}{
		{"decimal string beyond 2^53", "1000000000000000001", oneEthPlusOne},
		{"json number", json.Number("1000000000000000001"), oneEthPlusOne},
		{"big.Int", oneEthPlusOne, oneEthPlusOne},
		{"int", 7, big.NewInt(7)},
		{"largest int", new(big.Int).Sub(pow2(127), big.NewInt(1)).String(), new(big.Int).Sub(pow2(127), big.NewInt(1))},
	} {
		got, err := ConformKeyword("eth.tx", map[string]any{"value": tc.in})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if v := intAt(t, got, "value"); v.Cmp(tc.want) != 0 {
			t.Errorf("%s: %s, want %s", tc.name, v, tc.want)
		}
	}
	// uint holds 2^200 exactly; int refuses it.
	got, err := ConformKeyword("eth.eip_712", map[string]any{"domain": map[string]any{"chain_id": pow2(200).String()}})
	if err != nil {
		t.Fatal(err)
	}
	if v := intAt(t, got, "domain", "chain_id"); v.Cmp(pow2(200)) != 0 {
		t.Errorf("uint 2^200 became %s", v)
	}
	for _, tc := range []struct {
		keyword string
		in      any
		path    string
		message string
	}{
		{"eth.tx", map[string]any{"value": pow2(200).String()}, ".value", "does not fit an int, which is signed 128-bit"},
		{"eth.tx", map[string]any{"value": pow2(127)}, ".value", "does not fit an int"},
		{"eth.eip_712", map[string]any{"domain": map[string]any{"chain_id": "-1"}}, ".domain.chain_id", "does not fit a uint"},
		{"eth.eip_712", map[string]any{"domain": map[string]any{"chain_id": pow2(256)}}, ".domain.chain_id", "does not fit a uint"},
		{"eth.tx", map[string]any{"value": "1.5"}, ".value", `"1.5" is not a whole number`},
		{"eth.tx", map[string]any{"value": true}, ".value", "must be an int (a number or a decimal string), not a bool"},
		{"eth.tx", map[string]any{"to": 5}, ".to", "must be a string, not a number"},
		{"eth.tx", map[string]any{"vaule": "1"}, ".vaule", `EthereumTransaction has no field "vaule"; did you mean value?`},
		{"eth.tx", "0xab", "", "must be an object (EthereumTransaction), not a string"},
		{"wallets", []any{map[string]any{"id": "w"}, map[string]any{"exported": "yes"}}, "[1].exported", "must be a bool, not a string"},
		{"solana.tx", map[string]any{"instructions": []any{map[string]any{"accounts": []any{map[string]any{"signer": 1}}}}},
			".instructions[0].accounts[0].signer", "must be a bool"},
		{"eth.tx", map[string]any{"contract_call_args": map[string]any{"wad": 1.5}}, ".contract_call_args['wad']", "not a whole number"},
		{"eth.tx", map[string]any{"contract_call_args": map[string]any{"wad": pow2(130)}}, ".contract_call_args['wad']", "does not fit an int"},
		{"eth.tx", map[string]any{"nonce": nil}, ".nonce", "is null"},
		{"eth.trx", map[string]any{}, "", `did you mean eth.tx?`},
		{"activity", map[string]any{}, "", "not a condition keyword that carries a request's data"},
	} {
		_, err := ConformKeyword(tc.keyword, tc.in)
		ce, ok := err.(*ConformError)
		if !ok {
			t.Errorf("%s %v: error %v, want a ConformError", tc.keyword, tc.in, err)
			continue
		}
		if ce.Path != tc.path || !strings.Contains(ce.Message, tc.message) {
			t.Errorf("%s %v: path %q message %q; want path %q, a message containing %q", tc.keyword, tc.in, ce.Path, ce.Message, tc.path, tc.message)
		}
	}
}

// TestConformEvaluates: a conformed transaction decides a 1 ETH limit
// exactly on both sides, and an absent field stays an evaluation error.
func TestConformEvaluates(t *testing.T) {
	prog, diags := Compile("eth.tx.value > 1000000000000000000", FieldCondition)
	if diags.HasError() {
		t.Fatal(diags)
	}
	for value, want := range map[string]bool{"1000000000000000001": true, "1000000000000000000": false} {
		tx, err := ConformKeyword("eth.tx", map[string]any{"value": value})
		if err != nil {
			t.Fatal(err)
		}
		got, err := prog.Eval(Env{"eth.tx": tx})
		if err != nil || got != want {
			t.Errorf("value %s: %v, %v; want %v", value, got, err, want)
		}
	}
	tx, _ := ConformKeyword("eth.tx", map[string]any{"to": "0xab"})
	if _, err := prog.Eval(Env{"eth.tx": tx}); err == nil || !strings.Contains(err.Error(), "MissingField") {
		t.Errorf("a transaction without a value: %v, want a MissingField error", err)
	}
	if _, err := prog.Eval(Env{}); err == nil || !strings.Contains(err.Error(), "MissingKeyword") {
		t.Errorf("a request without eth.tx: %v, want a MissingKeyword error", err)
	}
}
