package activityrequest

import (
	"encoding/json"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Params takes each field the type exposes from its camel-case wire name,
// and nothing else.
func TestParams(t *testing.T) {
	wire := map[string]any{"signWith": "k", "payload": "00", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hashFunction": "HASH_FUNCTION_SHA256"}
	got := Params(client.OpSignRawPayload.Type, wire)
	want := map[string]any{"encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hash_function": "HASH_FUNCTION_SHA256"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("params %v, want %v", got, want)
	}
	if got := Params("ACTIVITY_TYPE_CREATE_WALLET", map[string]any{"walletName": "w"}); len(got) != 0 {
		t.Fatalf("a type exposing no params gave %v", got)
	}
}

// A sign_transaction's Ethereum transaction becomes eth.tx from the key's
// address; another chain's sets nothing; one that does not decode is an
// error naming the field.
func TestDecodePayloadTransaction(t *testing.T) {
	to := common.HexToAddress("0x2222222222222222222222222222222222222222")
	unsigned, err := payload.EncodeUnsignedEthTx(types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), GasTipCap: big.NewInt(1),
		GasFeeCap: big.NewInt(2), Gas: 21000, To: &to, Value: big.NewInt(7)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	params := func(typ, tx string) json.RawMessage {
		b, _ := json.Marshal(client.SignTransactionParams{SignWith: "k", UnsignedTransaction: tx, Type: typ})
		return b
	}
	p, err := DecodePayload(client.OpSignTransaction.Type, params(payload.TxTypeEthereum, unsigned))
	if err != nil || p.Tx == nil {
		t.Fatalf("payload %+v, %v", p, err)
	}
	req := policyset.Request{Type: client.OpSignTransaction.Type}
	p.Set(&req, "0xAAAA000000000000000000000000000000000001")
	kw, _ := req.Keyword("eth.tx")
	tx, _ := kw.(map[string]any)
	if v, _ := tx["value"].(*big.Int); v == nil || v.Int64() != 7 || tx["to"] != strings.ToLower(to.Hex()) ||
		tx["from"] != "0xaaaa000000000000000000000000000000000001" {
		t.Fatalf("eth.tx %v", tx)
	}
	if p, err := DecodePayload(client.OpSignTransaction.Type, params("TRANSACTION_TYPE_SOLANA", "00")); err != nil || p.Tx != nil {
		t.Fatalf("a Solana transaction: %+v, %v", p, err)
	}
	if _, err := DecodePayload(client.OpSignTransaction.Type, params(payload.TxTypeEthereum, "0xzz")); err == nil ||
		!strings.Contains(err.Error(), "parameters.unsignedTransaction is not hexadecimal") {
		t.Fatalf("an undecodable transaction: %v", err)
	}
}

// A sign_raw_payload's EIP-712 payload becomes eth.eip_712; a hex payload
// sets nothing.
func TestDecodePayloadTypedData(t *testing.T) {
	typed, err := os.ReadFile("../payload/testdata/permit2_single.json")
	if err != nil {
		t.Fatal(err)
	}
	params := func(encoding, data string) json.RawMessage {
		b, _ := json.Marshal(client.SignRawPayloadParams{SignWith: "k", Payload: data, Encoding: encoding, HashFunction: "HASH_FUNCTION_NOT_APPLICABLE"})
		return b
	}
	p, err := DecodePayload(client.OpSignRawPayload.Type, params(payload.EncodingEIP712, string(typed)))
	if err != nil || p.Typed == nil {
		t.Fatalf("payload %+v, %v", p, err)
	}
	req := policyset.Request{Type: client.OpSignRawPayload.Type}
	p.Set(&req, "")
	kw, _ := req.Keyword("eth.eip_712")
	if m, _ := kw.(map[string]any); m["primary_type"] != "PermitSingle" {
		t.Fatalf("eth.eip_712 %v", kw)
	}
	if p, err := DecodePayload(client.OpSignRawPayload.Type, params("PAYLOAD_ENCODING_HEXADECIMAL", "00")); err != nil || p.Typed != nil || p.Tx != nil {
		t.Fatalf("a hex payload: %+v, %v", p, err)
	}
	if _, err := DecodePayload(client.OpSignRawPayload.Type, params(payload.EncodingEIP712, "{")); err == nil ||
		!strings.HasPrefix(err.Error(), "parameters.payload is not EIP-712 typed data") {
		t.Fatalf("undecodable typed data: %v", err)
	}
}
