package emulator

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// The decision table writes a transaction case's request as the parsed
// keywords (eth.tx, eth.eip_712); the emulator's suite builds the real
// unsigned transaction or typed data they come from, submits that, and
// checks that the emulator parses it back to the table's keywords.

// caseInt reads a table integer: a JSON number or a decimal string; absent
// is 0.
func caseInt(t *testing.T, m map[string]any, key string) *big.Int {
	t.Helper()
	var s string
	switch v := m[key].(type) {
	case nil:
		return new(big.Int)
	case json.Number:
		s = v.String()
	case string:
		s = v
	default:
		t.Fatalf("eth.tx.%s = %#v is not a number or a decimal string", key, v)
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("eth.tx.%s = %q is not a whole number", key, s)
	}
	return n
}

// caseUnsignedTx builds the unsigned transaction of a case's eth.tx, as hex.
func caseUnsignedTx(t *testing.T, m map[string]any) string {
	t.Helper()
	str := func(k string) string { s, _ := m[k].(string); return s }
	var to *common.Address
	if s := str("to"); s != "" {
		a := common.HexToAddress(s)
		to = &a
	}
	data, err := hex.DecodeString(strings.TrimPrefix(str("data"), "0x"))
	if err != nil {
		t.Fatalf("eth.tx.data: %v", err)
	}
	num := func(k string) *big.Int { return caseInt(t, m, k) }
	chainID, nonce, gas, value := num("chain_id"), num("nonce").Uint64(), num("gas").Uint64(), num("value")
	switch typ := str("type"); typ {
	case "LEGACY":
		var id *big.Int // before EIP-155 when the case names no chain
		if chainID.Sign() != 0 {
			id = chainID
		}
		return unsignedTxHex(t, types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: num("gas_price"), Gas: gas, To: to, Value: value, Data: data}), id)
	case "TYPE_1":
		return unsignedTxHex(t, types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: num("gas_price"), Gas: gas, To: to,
			Value: value, Data: data}), nil)
	case "TYPE_2":
		return unsignedTxHex(t, types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: num("max_priority_fee_per_gas"),
			GasFeeCap: num("max_fee_per_gas"), Gas: gas, To: to, Value: value, Data: data}), nil)
	default:
		t.Fatalf("eth.tx.type %q: the emulator's suite builds LEGACY, TYPE_1 and TYPE_2 transactions", typ)
	}
	return ""
}

var evmAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// caseTypedData builds the EIP-712 typed-data JSON of a case's
// eth.eip_712, inferring the types: an address for 0x and 40 hex digits,
// uint256 for a number, bool, and string otherwise.
func caseTypedData(t *testing.T, m map[string]any) string {
	t.Helper()
	domain, _ := m["domain"].(map[string]any)
	message, _ := m["message"].(map[string]any)
	primary, _ := m["primary_type"].(string)
	type field struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	wireDomain, domainTypes := map[string]any{}, []field{}
	for _, f := range []struct{ key, name, typ string }{{"name", "name", "string"}, {"version", "version", "string"},
		{"chain_id", "chainId", "uint256"}, {"verifying_contract", "verifyingContract", "address"}} {
		if v, ok := domain[f.key]; ok {
			wireDomain[f.name] = v
			domainTypes = append(domainTypes, field{f.name, f.typ})
		}
	}
	messageTypes := []field{}
	for _, k := range slices.Sorted(maps.Keys(message)) {
		typ := "string"
		switch v := message[k].(type) {
		case json.Number:
			typ = "uint256"
		case bool:
			typ = "bool"
		case string:
			if evmAddress.MatchString(v) {
				typ = "address"
			}
		default:
			t.Fatalf("eth.eip_712.message[%q] = %#v: the emulator's suite infers types for numbers, bools and strings only", k, v)
		}
		messageTypes = append(messageTypes, field{k, typ})
	}
	b, err := json.Marshal(map[string]any{"types": map[string][]field{"EIP712Domain": domainTypes, primary: messageTypes},
		"primaryType": primary, "domain": wireDomain, "message": message})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// keywordText renders a keyword value or a table value alike, for
// comparing the emulator's parse with the table: integers in decimal.
func keywordText(v any) string {
	switch x := v.(type) {
	case *big.Int:
		return x.String()
	case json.Number:
		return x.String()
	case map[string]any:
		parts := []string{}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, k+":"+keywordText(x[k]))
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprint(v)
}
