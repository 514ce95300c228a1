package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestSignRawPayloadVerifies signs through the service with each curve,
// naming the key by id and by address, and verifies each signature with
// the public key that list_private_keys shows.
func TestSignRawPayloadVerifies(t *testing.T) {
	e := newTestEmulator(t)
	createKeys(t, e, keyParams("secp", curveSecp256k1, addressEthereum), keyParams("p256", curveP256, addressCompressed),
		keyParams("ed", curveEd25519, addressSolana))
	keys := map[string]client.PrivateKey{}
	for _, k := range listKeys(t, e) {
		keys[k.PrivateKeyName] = k
	}
	digest := sha256.Sum256([]byte("x"))
	for _, tt := range []struct {
		name, key, signWith, payload, encoding, hash string
		msg                                          []byte
	}{
		{"secp by id, text, keccak", "secp", "", "hello", "PAYLOAD_ENCODING_TEXT_UTF8", hashKeccak256, []byte("hello")},
		{"secp by lowercased address, hex no-op", "secp", "lower", "0x" + hex.EncodeToString(digest[:]), "PAYLOAD_ENCODING_HEXADECIMAL", hashNoOp, digest[:]},
		{"secp by address, sha256", "secp", "address", "68656c6c6f", "PAYLOAD_ENCODING_HEXADECIMAL", hashSHA256, []byte("hello")},
		{"p256 by address, sha256", "p256", "address", "hello", "PAYLOAD_ENCODING_TEXT_UTF8", hashSHA256, []byte("hello")},
		{"ed25519 by solana address", "ed", "address", "hello", "PAYLOAD_ENCODING_TEXT_UTF8", hashNotApplicable, []byte("hello")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := keys[tt.key]
			signWith := k.PrivateKeyID
			switch tt.signWith {
			case "address":
				signWith = k.Addresses[0].Address
			case "lower":
				signWith = strings.ToLower(k.Addresses[0].Address)
			}
			got, err := e.client.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: signWith, Payload: tt.payload, Encoding: tt.encoding, HashFunction: tt.hash})
			if err != nil {
				t.Fatal(err)
			}
			verifyRaw(t, k.Curve, k.PublicKey, tt.msg, tt.hash, got.Result.R, got.Result.S, got.Result.V)
		})
	}
}

func TestSignRawPayloadFailures(t *testing.T) {
	e := newTestEmulator(t)
	ids := createKeys(t, e, keyParams("secp", curveSecp256k1, addressEthereum), keyParams("ed", curveEd25519, addressSolana))
	secp, ed := ids[0].PrivateKeyID, ids[1].PrivateKeyID
	for _, tt := range []struct {
		name string
		p    client.SignRawPayloadParams
		code int
		want string
	}{
		{"unknown key", client.SignRawPayloadParams{SignWith: "nobody", Payload: "aa", Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: hashSHA256},
			client.CodeNotFound, "no private key with id or address nobody"},
		{"solana address in the wrong case", client.SignRawPayloadParams{SignWith: strings.ToUpper(ids[1].Addresses[0].Address), Payload: "aa",
			Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: hashNotApplicable}, client.CodeNotFound, "no private key"},
		{"eip7702", client.SignRawPayloadParams{SignWith: secp, Payload: "{}", Encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", HashFunction: hashNotApplicable},
			client.CodeUnimplemented, "does not implement"},
		{"ed25519 with a hash", client.SignRawPayloadParams{SignWith: ed, Payload: "hi", Encoding: "PAYLOAD_ENCODING_TEXT_UTF8", HashFunction: hashSHA256},
			client.CodeInvalidArgument, "hashFunction must be HASH_FUNCTION_NOT_APPLICABLE"},
		{"no-op on 2 bytes", client.SignRawPayloadParams{SignWith: secp, Payload: "abcd", Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: hashNoOp},
			client.CodeInvalidArgument, "must be 32 bytes; it is 2 bytes"},
		{"not applicable on ecdsa", client.SignRawPayloadParams{SignWith: secp, Payload: "hi", Encoding: "PAYLOAD_ENCODING_TEXT_UTF8", HashFunction: hashNotApplicable},
			client.CodeInvalidArgument, "only for ed25519 keys"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.client.SignRawPayload(t.Context(), tt.p)
			wantFailedActivity(t, err, tt.code, tt.want)
		})
	}
}

func TestSignRawPayloadValidation(t *testing.T) {
	e := newTestEmulator(t)
	const typ = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
	for _, tt := range []struct{ name, params, want string }{
		{"missing payload", `{"signWith":"k","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_SHA256"}`, "missing required field parameters.payload"},
		{"missing hash", `{"signWith":"k","payload":"aa","encoding":"PAYLOAD_ENCODING_HEXADECIMAL"}`, "missing required field parameters.hashFunction"},
		{"bad encoding", `{"signWith":"k","payload":"aa","encoding":"HEX","hashFunction":"HASH_FUNCTION_SHA256"}`, `field parameters.encoding: unknown value "HEX"`},
		{"bad hash", `{"signWith":"k","payload":"aa","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"SHA3"}`, `field parameters.hashFunction: unknown value "SHA3"`},
		{"not hex", `{"signWith":"k","payload":"xyz","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_SHA256"}`, "field parameters.payload"},
		{"empty signWith", `{"signWith":"","payload":"aa","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_SHA256"}`, "field parameters.signWith"},
		{"unknown field", `{"signWith":"k","payload":"aa","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_SHA256","v":1}`, `unknown field "v"`},
		{"wrong type", `{"signWith":1,"payload":"aa","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_SHA256"}`, "wrong JSON type"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/sign_raw_payload", submitBody(typ, tt.params), e.key), http.StatusBadRequest, tt.want)
		})
	}
}
