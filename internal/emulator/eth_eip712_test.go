package emulator

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// permit2Single is a Permit2 PermitSingle (the payload package's test
// data): nested structs, uint160 and uint48 amounts, mixed-case
// addresses, as dapps send it.
func permit2Single(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../payload/testdata/permit2_single.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The emulator signs the EIP-712 hash of the typed data with the key, and
// the policies see eth.eip_712.
func TestSignRawPayloadEIP712(t *testing.T) {
	w := newPolicyWorld(t)
	keyID, address := newHotKey(t, w.client)
	createPolicies(t, w.client, client.PolicyParams{PolicyName: "permit2 on mainnet", Effect: client.EffectAllow,
		Condition: "activity.params.encoding == 'PAYLOAD_ENCODING_EIP712' && eth.eip_712.domain.verifying_contract == '0x000000000022d473030f116ddee9f6b43ac78ba3'" +
			" && eth.eip_712.domain.chain_id == 1 && eth.eip_712.message['details']['expiration'] == 1735689600"})
	got, err := w.bob.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: keyID, Payload: permit2Single(t),
		Encoding: encodingEIP712, HashFunction: hashNotApplicable})
	if err != nil {
		t.Fatal(err)
	}
	var typed apitypes.TypedData
	if err := json.Unmarshal([]byte(permit2Single(t)), &typed); err != nil {
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
	other := strings.Replace(permit2Single(t), `"chainId": 1,`, `"chainId": 137,`, 1)
	_, err = w.bob.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: keyID, Payload: other, Encoding: encodingEIP712, HashFunction: hashNotApplicable})
	denied(t, err, "implicitly denied")

	// EIP-712 is signed with secp256k1 keys only.
	ed := createKeys(t, w.testEmulator, keyParams("ed", curveEd25519, addressSolana))[0].PrivateKeyID
	_, err = w.client.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: ed, Payload: permit2Single(t), Encoding: encodingEIP712, HashFunction: hashNotApplicable})
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
		{"no domain type", params(strings.Replace(permit2Single(t), `"EIP712Domain"`, `"Other"`, 1), hashNotApplicable), "its types have no EIP712Domain"},
		{"value of the wrong type", params(strings.Replace(permit2Single(t), `"nonce": 0`, `"nonce": "x"`, 1), hashNotApplicable),
			"field parameters.payload: with PAYLOAD_ENCODING_EIP712 it is not valid EIP-712 typed data"},
		{"fraction", params(strings.Replace(permit2Single(t), `"nonce": 0`, `"nonce": 0.5`, 1), hashNotApplicable), "is not valid EIP-712 typed data"},
		{"trailing data", params(permit2Single(t)+"{}", hashNotApplicable), "has more after the typed data"},
		{"keccak", params(permit2Single(t), hashKeccak256), "field parameters.hashFunction: with PAYLOAD_ENCODING_EIP712"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/sign_raw_payload", submitBody(typ, tt.params), e.key), http.StatusBadRequest, tt.want)
		})
	}
}
