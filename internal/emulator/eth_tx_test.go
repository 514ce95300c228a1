package emulator

import (
	"encoding/hex"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// unsignedTxHex is tx serialized as wallets send it to be signed: a typed
// transaction without its signature's three fields; a legacy one as
// rlp([nonce, gasPrice, gas, to, value, data]) plus (chainID, 0, 0) when
// chainID is not nil (EIP-155).
func unsignedTxHex(t *testing.T, tx *types.Transaction, chainID *big.Int) string {
	t.Helper()
	if tx.Type() == types.LegacyTxType {
		f := legacyUnsigned{Nonce: tx.Nonce(), GasPrice: tx.GasPrice(), Gas: tx.Gas(), To: tx.To(), Value: tx.Value(), Data: tx.Data()}
		if chainID != nil {
			f.V, f.R, f.S = chainID, new(big.Int), new(big.Int)
		}
		b, err := rlp.EncodeToBytes(&f)
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b)
	}
	b, err := tx.MarshalBinary() // with a zero signature
	if err != nil {
		t.Fatal(err)
	}
	var items []rlp.RawValue
	if err := rlp.DecodeBytes(b[1:], &items); err != nil {
		t.Fatal(err)
	}
	body, err := rlp.EncodeToBytes(items[:len(items)-3])
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(append([]byte{tx.Type()}, body...))
}

var (
	addrTo   = common.HexToAddress("0xAbCdEf0123456789aBcDeF0123456789AbCdEf01")
	twoTo100 = new(big.Int).Lsh(big.NewInt(1), 100)
)

func bigs(v int64) *big.Int { return big.NewInt(v) }

// Each transaction type decodes to the eth.tx the reference describes, and
// the keyword conforms to the catalogue.
func TestDecodeEthTxTypes(t *testing.T) {
	auth := types.SetCodeAuthorization{ChainID: *uint256.NewInt(1), Address: common.HexToAddress("0x4444444444444444444444444444444444444444"), Nonce: 9}
	for _, tt := range []struct {
		name    string
		hex     string
		want    map[string]any
		absent  []string
		chainID *big.Int
	}{
		{"legacy EIP-155", unsignedTxHex(t, types.NewTx(&types.LegacyTx{Nonce: 3, GasPrice: bigs(20e9), Gas: 21000, To: &addrTo, Value: bigs(5000)}), bigs(1)),
			map[string]any{"type": "LEGACY", "chain_id": "1", "nonce": "3", "gas": "21000", "gas_price": "20000000000", "value": "5000",
				"to": strings.ToLower(addrTo.Hex()), "data": "0x", "function_name": ""},
			[]string{"max_fee_per_gas", "max_priority_fee_per_gas", "function_signature", "contract_call_args"}, bigs(1)},
		{"legacy before EIP-155, contract creation", unsignedTxHex(t, types.NewTx(&types.LegacyTx{Nonce: 0, GasPrice: bigs(1), Gas: 53000, Value: bigs(0),
			Data: []byte{0x60, 0xAB}}), nil),
			map[string]any{"type": "LEGACY", "chain_id": "0", "to": "", "data": "0x60ab"}, nil, nil},
		{"EIP-2930", unsignedTxHex(t, types.NewTx(&types.AccessListTx{ChainID: bigs(137), Nonce: 1, GasPrice: bigs(7), Gas: 30000, To: &addrTo, Value: bigs(1),
			AccessList: types.AccessList{{Address: addrTo}}}), nil),
			map[string]any{"type": "TYPE_1", "chain_id": "137", "gas_price": "7"}, []string{"max_fee_per_gas"}, bigs(137)},
		{"EIP-1559 of 2^100 wei", unsignedTxHex(t, types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), Nonce: 7, GasTipCap: bigs(1e9), GasFeeCap: bigs(30e9),
			Gas: 21000, To: &addrTo, Value: twoTo100, Data: []byte{0xa9, 0x05, 0x9c, 0xbb}}), nil),
			map[string]any{"type": "TYPE_2", "value": twoTo100.String(), "gas_price": "30000000000", "max_fee_per_gas": "30000000000",
				"max_priority_fee_per_gas": "1000000000", "data": "0xa9059cbb", "nonce": "7"}, []string{"max_fee_per_blob_gas"}, bigs(1)},
		{"EIP-7702", unsignedTxHex(t, types.NewTx(&types.SetCodeTx{ChainID: uint256.NewInt(8453), Nonce: 2, GasTipCap: uint256.NewInt(2), GasFeeCap: uint256.NewInt(3),
			Gas: 90000, To: addrTo, Value: uint256.NewInt(0), AuthList: []types.SetCodeAuthorization{auth}}), nil),
			map[string]any{"type": "TYPE_4", "chain_id": "8453", "gas_price": "3", "max_fee_per_gas": "3", "max_priority_fee_per_gas": "2"}, nil, bigs(8453)},
		{"EIP-4844 without blobs", unsignedTxHex(t, types.NewTx(&types.BlobTx{ChainID: uint256.NewInt(1), GasTipCap: uint256.NewInt(1), GasFeeCap: uint256.NewInt(2),
			Gas: 21000, To: addrTo, Value: uint256.NewInt(0), BlobFeeCap: uint256.NewInt(5), BlobHashes: []common.Hash{{0x01}}}), nil),
			map[string]any{"type": "TYPE_3", "max_fee_per_blob_gas": "5"}, nil, bigs(1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeEthTx(tt.hex)
			if err != nil {
				t.Fatal(err)
			}
			if (got.chainID == nil) != (tt.chainID == nil) || (got.chainID != nil && got.chainID.Cmp(tt.chainID) != 0) {
				t.Fatalf("chain id %v, want %v", got.chainID, tt.chainID)
			}
			const from = "0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
			kw := got.keyword(from)
			if kw["from"] != strings.ToLower(from) {
				t.Errorf("from = %v", kw["from"])
			}
			for k, want := range tt.want {
				if g := kw[k]; g == nil || languageText(g) != want {
					t.Errorf("%s = %v (%T), want %s", k, g, g, want)
				}
			}
			for _, k := range tt.absent {
				if v, ok := kw[k]; ok {
					t.Errorf("%s = %v, want it absent", k, v)
				}
			}
			var req policyset.Request
			if err := req.SetKeyword("eth.tx", kw); err != nil {
				t.Fatalf("eth.tx does not conform: %v", err)
			}
		})
	}
}

// languageText is a keyword value as text: integers must be *big.Int.
func languageText(v any) string {
	switch x := v.(type) {
	case *big.Int:
		return x.String()
	case string:
		return x
	}
	return "not a *big.Int or string"
}

// An unsigned transaction given with a zero signature decodes alike; a
// signed one is not an unsigned transaction.
func TestDecodeEthTxSignatureFields(t *testing.T) {
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), GasTipCap: bigs(1), GasFeeCap: bigs(2), Gas: 21000, To: &addrTo, Value: bigs(3)})
	zero, _ := tx.MarshalBinary()
	if got, err := decodeEthTx(hex.EncodeToString(zero)); err != nil || got.tx.Value().Int64() != 3 {
		t.Fatalf("zero signature: %v %v", got, err)
	}
	key, _ := generateKeyPair(curveSecp256k1)
	secret, _ := hex.DecodeString(key.secretHex())
	signed, err := (&ethTx{tx: tx, chainID: bigs(1)}).sign(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeEthTx(hex.EncodeToString(signed)); err == nil || !strings.Contains(err.Error(), "is a signed") {
		t.Fatalf("signed: %v", err)
	}
}

// A transaction that does not decode is a 400 naming the field.
func TestSignTransactionRefusesWhatDoesNotDecode(t *testing.T) {
	e := newTestEmulator(t)
	legacy6 := unsignedTxHex(t, types.NewTx(&types.LegacyTx{GasPrice: bigs(1), Gas: 21000, To: &addrTo, Value: bigs(1)}), nil)
	eip1559 := unsignedTxHex(t, types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), GasTipCap: bigs(1), GasFeeCap: bigs(2), Gas: 21000, To: &addrTo, Value: bigs(3)}), nil)
	for _, tt := range []struct{ name, tx, want string }{
		{"empty", "", "is empty"},
		{"only 0x", "0x", "is empty"},
		{"not hex", "0xzz", "is not hexadecimal"},
		{"odd length", "02f", "is not hexadecimal"},
		{"malformed RLP", "02f8ff01", "is not a type-2 (TYPE_2) transaction's RLP list"},
		{"truncated legacy", legacy6[:len(legacy6)-4], "is not a legacy transaction's RLP"},
		{"trailing bytes", eip1559 + "00", "more than one value"},
		{"unknown type", "05c0", "begins with byte 0x05"},
		{"typed for chain 0", unsignedTxHex(t, types.NewTx(&types.DynamicFeeTx{ChainID: bigs(0), GasTipCap: bigs(1), GasFeeCap: bigs(2), Gas: 21000}), nil),
			"for chain id 0"},
		{"too few fields", "02c30102 03", "is a type-2 (TYPE_2) transaction with 3 fields; unsigned it has 9"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			params := `{"signWith":"k","unsignedTransaction":"` + strings.ReplaceAll(tt.tx, " ", "") + `","type":"TRANSACTION_TYPE_ETHEREUM"}`
			a := e.post(t, "/public/v1/submit/sign_transaction", submitBody("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params), e.key)
			wantError(t, a, http.StatusBadRequest, "field parameters.unsignedTransaction: ")
			wantError(t, a, http.StatusBadRequest, tt.want)
		})
	}
}

// An integer beyond the language's int is left out of eth.tx: 2^127-1 is
// the largest it keeps.
func TestEthTxLeavesOutWhatTheLanguageCannotCompare(t *testing.T) {
	maxInt := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	for _, tt := range []struct {
		value *big.Int
		kept  bool
	}{{maxInt, true}, {new(big.Int).Add(maxInt, big.NewInt(1)), false}} {
		tx := &ethTx{tx: types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), GasTipCap: bigs(1), GasFeeCap: bigs(2), Gas: 21000, To: &addrTo, Value: tt.value}), chainID: bigs(1)}
		kw := tx.keyword("")
		if _, ok := kw["value"]; ok != tt.kept {
			t.Fatalf("value %s kept %v, want %v", tt.value, ok, tt.kept)
		}
		if _, ok := kw["from"]; ok {
			t.Fatal("from without a key")
		}
		var req policyset.Request
		if err := req.SetKeyword("eth.tx", kw); err != nil {
			t.Fatalf("eth.tx does not conform: %v", err)
		}
	}
}
