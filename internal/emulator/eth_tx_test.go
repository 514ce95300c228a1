package emulator

import (
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/custody-labs/terraform-provider-custody/internal/payload"
)

// unsignedTxHex is tx serialized as wallets send it to be signed
// (payload.EncodeUnsignedEthTx).
func unsignedTxHex(t *testing.T, tx *types.Transaction, chainID *big.Int) string {
	t.Helper()
	s, err := payload.EncodeUnsignedEthTx(tx, chainID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var addrTo = common.HexToAddress("0xAbCdEf0123456789aBcDeF0123456789AbCdEf01")

func bigs(v int64) *big.Int { return big.NewInt(v) }

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
