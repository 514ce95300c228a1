package payload

import (
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

var (
	addrTo   = common.HexToAddress("0xAbCdEf0123456789aBcDeF0123456789AbCdEf01")
	twoTo100 = new(big.Int).Lsh(big.NewInt(1), 100)
)

func bigs(v int64) *big.Int { return big.NewInt(v) }

// unsignedTxHex is EncodeUnsignedEthTx, failing the test on an error.
func unsignedTxHex(t *testing.T, tx *types.Transaction, chainID *big.Int) string {
	t.Helper()
	s, err := EncodeUnsignedEthTx(tx, chainID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

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
			got, err := DecodeEthTx(tt.hex)
			if err != nil {
				t.Fatal(err)
			}
			if (got.chainID == nil) != (tt.chainID == nil) || (got.chainID != nil && got.chainID.Cmp(tt.chainID) != 0) {
				t.Fatalf("chain id %v, want %v", got.chainID, tt.chainID)
			}
			const from = "0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
			kw := got.Keyword(from)
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
	if got, err := DecodeEthTx(hex.EncodeToString(zero)); err != nil || got.tx.Value().Int64() != 3 {
		t.Fatalf("zero signature: %v %v", got, err)
	}
	key, _ := crypto.GenerateKey()
	secret := crypto.FromECDSA(key)
	signed, err := (&EthTx{tx: tx, chainID: bigs(1)}).Sign(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeEthTx(hex.EncodeToString(signed)); err == nil || !strings.Contains(err.Error(), "is a signed") {
		t.Fatalf("signed: %v", err)
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
		tx := &EthTx{tx: types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), GasTipCap: bigs(1), GasFeeCap: bigs(2), Gas: 21000, To: &addrTo, Value: tt.value}), chainID: bigs(1)}
		kw := tx.Keyword("")
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
