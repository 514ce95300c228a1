package payload

import (
	"math/big"
	"os"
	"reflect"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// permit2Single is a Permit2 PermitSingle: nested structs, uint160 and
// uint48 amounts, mixed-case addresses, as dapps send it.
func permit2Single(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/permit2_single.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Permit2 message becomes eth.eip_712 with values by their declared
// types; the uint160 max amount, beyond the language's int, is left out.
func TestDecodeEIP712Permit2(t *testing.T) {
	d, err := DecodeEIP712(permit2Single(t))
	if err != nil {
		t.Fatal(err)
	}
	kw := d.Keyword()
	want := map[string]any{
		"primary_type": "PermitSingle",
		"domain":       map[string]any{"name": "Permit2", "chain_id": big.NewInt(1), "verifying_contract": "0x000000000022d473030f116ddee9f6b43ac78ba3"},
		"message": map[string]any{
			"details":     map[string]any{"token": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "expiration": big.NewInt(1735689600), "nonce": big.NewInt(0)},
			"spender":     "0x3fc91a3afd70395cd496c647d5a6cc9d4b2b7fad",
			"sigDeadline": big.NewInt(1735689600),
		},
	}
	if !reflect.DeepEqual(kw, want) {
		t.Fatalf("eth.eip_712 =\n%#v\nwant\n%#v", kw, want)
	}
	var req policyset.Request
	if err := req.SetKeyword("eth.eip_712", kw); err != nil {
		t.Fatalf("eth.eip_712 does not conform: %v", err)
	}
}

// Lists, bytes, bools, strings and signed integers keep their types.
func TestDecodeEIP712ValueTypes(t *testing.T) {
	d, err := DecodeEIP712(`{"types": {"EIP712Domain": [{"name": "version", "type": "string"}],
	  "Order": [{"name": "ok", "type": "bool"}, {"name": "memo", "type": "string"}, {"name": "salt", "type": "bytes32"},
	    {"name": "blob", "type": "bytes"}, {"name": "delta", "type": "int256"}, {"name": "to", "type": "address[]"}]},
	  "primaryType": "Order", "domain": {"version": "2"},
	  "message": {"ok": true, "memo": "Hi", "salt": "0x00000000000000000000000000000000000000000000000000000000000000AB",
	    "blob": "0xCAFE", "delta": -5, "to": ["0x00000000000000000000000000000000000000Aa"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	kw := d.Keyword()
	want := map[string]any{"ok": true, "memo": "Hi", "salt": "0x00000000000000000000000000000000000000000000000000000000000000ab",
		"blob": "0xcafe", "delta": big.NewInt(-5), "to": []any{"0x00000000000000000000000000000000000000aa"}}
	if !reflect.DeepEqual(kw["message"], want) || !reflect.DeepEqual(kw["domain"], map[string]any{"version": "2"}) {
		t.Fatalf("message %#v, domain %#v", kw["message"], kw["domain"])
	}
}
