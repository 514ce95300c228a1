package emulator

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// permit2Single is a Permit2 PermitSingle: nested structs, uint160 and
// uint48 amounts, mixed-case addresses, as dapps send it.
const permit2Single = `{
  "types": {
    "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
    "PermitSingle": [{"name": "details", "type": "PermitDetails"}, {"name": "spender", "type": "address"}, {"name": "sigDeadline", "type": "uint256"}],
    "PermitDetails": [{"name": "token", "type": "address"}, {"name": "amount", "type": "uint160"}, {"name": "expiration", "type": "uint48"}, {"name": "nonce", "type": "uint48"}]
  },
  "primaryType": "PermitSingle",
  "domain": {"name": "Permit2", "chainId": 1, "verifyingContract": "0x000000000022D473030F116dDEE9F6B43aC78BA3"},
  "message": {
    "details": {"token": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "amount": "1461501637330902918203684832716283019655932542975", "expiration": 1735689600, "nonce": 0},
    "spender": "0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD",
    "sigDeadline": "1735689600"
  }
}`

// A Permit2 message becomes eth.eip_712 with values by their declared
// types; the uint160 max amount, beyond the language's int, is left out.
func TestDecodeEIP712Permit2(t *testing.T) {
	d, err := decodeEIP712(permit2Single)
	if err != nil {
		t.Fatal(err)
	}
	kw := d.keyword()
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
	d, err := decodeEIP712(`{"types": {"EIP712Domain": [{"name": "version", "type": "string"}],
	  "Order": [{"name": "ok", "type": "bool"}, {"name": "memo", "type": "string"}, {"name": "salt", "type": "bytes32"},
	    {"name": "blob", "type": "bytes"}, {"name": "delta", "type": "int256"}, {"name": "to", "type": "address[]"}]},
	  "primaryType": "Order", "domain": {"version": "2"},
	  "message": {"ok": true, "memo": "Hi", "salt": "0x00000000000000000000000000000000000000000000000000000000000000AB",
	    "blob": "0xCAFE", "delta": -5, "to": ["0x00000000000000000000000000000000000000Aa"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	kw := d.keyword()
	want := map[string]any{"ok": true, "memo": "Hi", "salt": "0x00000000000000000000000000000000000000000000000000000000000000ab",
		"blob": "0xcafe", "delta": big.NewInt(-5), "to": []any{"0x00000000000000000000000000000000000000aa"}}
	if !reflect.DeepEqual(kw["message"], want) || !reflect.DeepEqual(kw["domain"], map[string]any{"version": "2"}) {
		t.Fatalf("message %#v, domain %#v", kw["message"], kw["domain"])
	}
}

// The emulator signs the EIP-712 hash of the typed data with the key, and
// the policies see eth.eip_712.
func TestSignRawPayloadEIP712(t *testing.T) {
	w := newPolicyWorld(t)
	keyID, address := newHotKey(t, w.client)
	createPolicies(t, w.client, client.PolicyParams{PolicyName: "permit2 on mainnet", Effect: client.EffectAllow,
		Condition: "activity.params.encoding == 'PAYLOAD_ENCODING_EIP712' && eth.eip_712.domain.verifying_contract == '0x000000000022d473030f116ddee9f6b43ac78ba3'" +
			" && eth.eip_712.domain.chain_id == 1 && eth.eip_712.message['details']['expiration'] == 1735689600"})
	got, err := w.bob.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: keyID, Payload: permit2Single,
		Encoding: encodingEIP712, HashFunction: hashNotApplicable})
	if err != nil {
		t.Fatal(err)
	}
	var typed apitypes.TypedData
	if err := json.Unmarshal([]byte(permit2Single), &typed); err != nil {
		t.Fatal(err)
	}
	details, ok := typed.Message["details"].(map[string]any)
	if !ok {
		t.Fatalf("details %#v", typed.Message["details"])
	}
	details["expiration"] = "1735689600" // exact, not a float64
	hash, _, err := apitypes.TypedDataAndHash(typed)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := hex.DecodeString(got.Result.R + got.Result.S + got.Result.V)
	if err != nil || len(sig) != 65 {
		t.Fatalf("signature r||s||v = %v %v", sig, err)
	}
	pub, err := crypto.SigToPub(hash, sig)
	if err != nil {
		t.Fatal(err)
	}
	if signer := crypto.PubkeyToAddress(*pub); signer != common.HexToAddress(address) {
		t.Fatalf("the signature recovers to %s, want the key's %s", signer.Hex(), address)
	}

	// On another chain no policy allows it.
	other := strings.Replace(permit2Single, `"chainId": 1,`, `"chainId": 137,`, 1)
	_, err = w.bob.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: keyID, Payload: other, Encoding: encodingEIP712, HashFunction: hashNotApplicable})
	denied(t, err, "implicitly denied")

	// EIP-712 is signed with secp256k1 keys only.
	ed := createKeys(t, w.testEmulator, keyParams("ed", curveEd25519, addressSolana))[0].PrivateKeyID
	_, err = w.client.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: ed, Payload: permit2Single, Encoding: encodingEIP712, HashFunction: hashNotApplicable})
	wantFailedActivity(t, err, client.CodeInvalidArgument, "EIP-712 typed data is signed with CURVE_SECP256K1 keys")
}

// A payload that is not typed data, or a hash function other than
// NOT_APPLICABLE, is a 400.
func TestSignRawPayloadEIP712Refused(t *testing.T) {
	e := newTestEmulator(t)
	const typ = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
	params := func(payload, hash string) string {
		b, _ := json.Marshal(client.SignRawPayloadParams{SignWith: "k", Payload: payload, Encoding: encodingEIP712, HashFunction: hash})
		return string(b)
	}
	for _, tt := range []struct{ name, params, want string }{
		{"not JSON", params("hello", hashNotApplicable), "field parameters.payload: with PAYLOAD_ENCODING_EIP712 it is not EIP-712 typed data"},
		{"empty object", params("{}", hashNotApplicable), `primaryType "" is not one of its types`},
		{"no domain type", params(strings.Replace(permit2Single, `"EIP712Domain"`, `"Other"`, 1), hashNotApplicable), "its types have no EIP712Domain"},
		{"value of the wrong type", params(strings.Replace(permit2Single, `"nonce": 0`, `"nonce": "x"`, 1), hashNotApplicable),
			"field parameters.payload: with PAYLOAD_ENCODING_EIP712 it is not valid EIP-712 typed data"},
		{"fraction", params(strings.Replace(permit2Single, `"nonce": 0`, `"nonce": 0.5`, 1), hashNotApplicable), "is not valid EIP-712 typed data"},
		{"trailing data", params(permit2Single+"{}", hashNotApplicable), "has more after the typed data"},
		{"keccak", params(permit2Single, hashKeccak256), "field parameters.hashFunction: with PAYLOAD_ENCODING_EIP712"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/sign_raw_payload", submitBody(typ, tt.params), e.key), http.StatusBadRequest, tt.want)
		})
	}
}
