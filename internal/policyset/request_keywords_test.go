package policyset

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// TestKeywordAttributes: the request attributes that carry keywords are
// the namespaces and the undotted keywords of the catalogue, without
// activity and private_key, which have attributes of their own.
func TestKeywordAttributes(t *testing.T) {
	got := strings.Join(KeywordAttributes(), " ")
	if want := "bitcoin eth secret solana tempo tron wallet wallet_account wallets"; got != want {
		t.Errorf("KeywordAttributes() = %s, want %s", got, want)
	}
}

// TestSetKeywordAttribute: a namespace's object sets its dotted keywords,
// which the policies then read; a mistake names its path from the
// attribute and leaves the request as it was.
func TestSetKeywordAttribute(t *testing.T) {
	var req Request
	err := req.SetKeywordAttribute("eth", map[string]any{
		"tx":      map[string]any{"value": "1000000000000000001", "to": "0x11"},
		"eip_712": map[string]any{"primary_type": "Permit"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := req.Keyword("eth.tx")
	txFields, _ := tx.(map[string]any)
	if v, _ := txFields["value"].(*big.Int); v == nil || v.String() != "1000000000000000001" {
		t.Errorf("eth.tx = %v, want its value 1000000000000000001 as a *big.Int", tx)
	}
	if _, ok := req.Keyword("eth.eip_712"); !ok {
		t.Error("eth.eip_712 was not set")
	}
	if err := req.SetKeywordAttribute("wallets", []any{map[string]any{"id": "w1", "exported": false}}); err != nil {
		t.Fatal(err)
	}
	d := Decide([]Policy{{Name: "limit", Effect: "EFFECT_ALLOW", Condition: "eth.tx.value > 1000000000000000000 && wallets.count() == 1"}},
		Request{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Approvers: []User{{ID: "alice"}}, keywords: req.keywords})
	if d.Verdict != "OUTCOME_ALLOW" {
		t.Errorf("a request carrying eth.tx and wallets: %s (%v)", d.Verdict, d.Policies[0].Err)
	}

	for _, tc := range []struct {
		attr string
		v    any
		path string
		msg  string
	}{
		{"eth", map[string]any{"eip_7702_authorization": map[string]any{}, "txn": map[string]any{}}, ".txn", `eth has no keyword "txn"; did you mean tx?`},
		{"eth", map[string]any{"tx": map[string]any{"value": "2e18"}}, ".tx.value", `"2e18" is not a whole number`},
		{"eth", "0xab", "", "must be an object of the eth keywords (eip_712, eip_7702_authorization, tx)"},
		{"solana", map[string]any{"tx": map[string]any{"transfers": []any{map[string]any{"amount": "x"}}}}, ".tx.transfers[0].amount", "not a whole number"},
		{"wallet", map[string]any{"labell": "hot"}, ".labell", `did you mean label?`},
		{"private_key", map[string]any{}, "", "not a request attribute that carries keywords"},
	} {
		before := len(req.keywords)
		err := req.SetKeywordAttribute(tc.attr, tc.v)
		var ce *policylang.ConformError
		if !errors.As(err, &ce) || ce.Path != tc.path || !strings.Contains(ce.Message, tc.msg) {
			t.Errorf("%s %v: %#v, want path %q and a message containing %q", tc.attr, tc.v, err, tc.path, tc.msg)
		}
		if len(req.keywords) != before {
			t.Errorf("%s: a refused attribute changed the request", tc.attr)
		}
	}
}
