package payload

import (
	"encoding/hex"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// fuzzSecret is a fixed secp256k1 secret, so that crashers reproduce.
var fuzzSecret, _ = hex.DecodeString("6e36a7e5adb567899060c48ecd055285f5616f309cbfe5c17749231733e6920e")

// Whatever unsignedTransaction holds, decoding it does not panic, and what
// decodes gives an eth.tx the catalogue takes and can be signed: go-ethereum
// panics on some inputs (a signer for chain 0), which must be refused first.
func FuzzDecodeEthTx(f *testing.F) {
	to := common.HexToAddress("0x1111111111111111111111111111111111111111")
	for _, tx := range []*types.Transaction{
		types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: bigs(2), Gas: 21000, To: &to, Value: bigs(3)}),
		types.NewTx(&types.AccessListTx{ChainID: bigs(1), Gas: 21000, To: &to, Value: bigs(3), GasPrice: bigs(1)}),
		types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), GasTipCap: bigs(1), GasFeeCap: bigs(2), Gas: 21000, To: &to, Value: bigs(3)}),
		types.NewTx(&types.SetCodeTx{ChainID: uint256.NewInt(1), GasTipCap: uint256.NewInt(1), GasFeeCap: uint256.NewInt(1), To: to,
			Value: uint256.NewInt(0), AuthList: []types.SetCodeAuthorization{{Address: to}}}),
	} {
		b, _ := tx.MarshalBinary()
		f.Add(hex.EncodeToString(b))
	}
	f.Add("")
	f.Add("0x02c0")
	f.Add("c9808080808080018080")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := DecodeEthTx(s)
		if err != nil {
			return
		}
		var req policyset.Request
		if err := req.SetKeyword("eth.tx", d.Keyword("0x1111111111111111111111111111111111111111")); err != nil {
			t.Fatalf("eth.tx of %q does not conform: %v", s, err)
		}
		if _, err := d.Sign(fuzzSecret); err != nil {
			t.Fatalf("%q decodes but does not sign: %v", s, err)
		}
	})
}

// Whatever the EIP-712 payload holds, decoding it does not panic, and what
// decodes gives an eth.eip_712 the catalogue takes.
func FuzzDecodeEIP712(f *testing.F) {
	f.Add(permit2Single(f))
	f.Add(`{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"M":[{"name":"a","type":"uint8[]"}]},"primaryType":"M","domain":{"name":"x"},"message":{"a":[1,2]}}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := DecodeEIP712(s)
		if err != nil {
			return
		}
		var req policyset.Request
		if err := req.SetKeyword("eth.eip_712", d.Keyword()); err != nil {
			t.Fatalf("eth.eip_712 of %q does not conform: %v", s, err)
		}
	})
}
