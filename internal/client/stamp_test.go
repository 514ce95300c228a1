package client

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

// verifyStampIndependently checks a stamp the way a server would, using
// only crypto/ecdsa and the documented format, none of the code under test.
func verifyStampIndependently(t *testing.T, header string, body []byte, wantPublicHex string) bool {
	t.Helper()
	if strings.ContainsAny(header, "=+/") {
		t.Fatalf("stamp %q is not unpadded base64url", header)
	}
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		t.Fatalf("stamp is not base64url: %v", err)
	}
	var s map[string]string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("stamp is not a JSON object of strings: %v", err)
	}
	if len(s) != 3 || s["scheme"] != "SIGNATURE_SCHEME_TK_API_P256" {
		t.Fatalf("stamp fields = %v", s)
	}
	if s["signature"] != strings.ToLower(s["signature"]) {
		t.Fatalf("signature %q is not lowercase hex", s["signature"])
	}
	pubBytes, err := hex.DecodeString(wantPublicHex)
	if err != nil {
		t.Fatal(err)
	}
	x, y := elliptic.UnmarshalCompressed(elliptic.P256(), pubBytes)
	if x == nil {
		t.Fatalf("bad public key %s", wantPublicHex)
	}
	if s["publicKey"] != wantPublicHex {
		return false
	}
	sig, err := hex.DecodeString(s["signature"])
	if err != nil {
		t.Fatalf("signature is not hex: %v", err)
	}
	digest := sha256.Sum256(body)
	//nolint:staticcheck // an independent check builds the key from raw coordinates on purpose
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).Set(x), Y: new(big.Int).Set(y)}
	return ecdsa.VerifyASN1(pub, digest[:], sig)
}

func TestStampVerifiesIndependently(t *testing.T) {
	body := []byte(`{"organizationId":"org-1","policyId":"p-1"}`)
	stamp, err := testKey.Stamp(body)
	if err != nil {
		t.Fatal(err)
	}
	if !verifyStampIndependently(t, stamp, body, testKey.PublicKeyHex()) {
		t.Fatal("a fresh stamp does not verify")
	}
}

func TestStampFailsForChangedBodyOrOtherKey(t *testing.T) {
	body := []byte(`{"organizationId":"org-1"}`)
	stamp, err := testKey.Stamp(body)
	if err != nil {
		t.Fatal(err)
	}
	if verifyStampIndependently(t, stamp, []byte(`{"organizationId":"org-1" }`), testKey.PublicKeyHex()) {
		t.Error("a stamp verified over a body with one more space")
	}
	other, _ := GenerateAPIKey()
	if verifyStampIndependently(t, stamp, body, other.PublicKeyHex()) {
		t.Error("a stamp verified under another key")
	}
	otherStamp, _ := other.Stamp(body)
	if verifyStampIndependently(t, otherStamp, body, testKey.PublicKeyHex()) {
		t.Error("another key's stamp verified as ours")
	}
}

func TestParseAPIKey(t *testing.T) {
	other, _ := GenerateAPIKey()
	pub, priv := testKey.PublicKeyHex(), testKey.PrivateKeyHex()
	tests := []struct {
		name, pub, priv, wantErr string
	}{
		{"valid pair", pub, priv, ""},
		{"upper-case hex", strings.ToUpper(pub), strings.ToUpper(priv), ""},
		{"missing public", "", priv, "public key is required"},
		{"missing private", pub, "", "private key is required"},
		{"uncompressed public", "04" + pub[2:] + pub[2:], priv, "compressed P-256 point"},
		{"not hex public", "zz" + pub[2:], priv, "compressed P-256 point"},
		{"short private", pub, priv[:62], "64 hex characters"},
		{"mismatched pair", other.PublicKeyHex(), priv, "does not match"},
		{"zero scalar", pub, strings.Repeat("0", 64), "not a valid P-256 scalar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseAPIKey(tt.pub, tt.priv)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if k.PublicKeyHex() != pub {
					t.Fatalf("public key = %s, want %s", k.PublicKeyHex(), pub)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.priv != "" && strings.Contains(err.Error(), tt.priv) {
				t.Fatalf("error leaks the private key: %v", err)
			}
		})
	}
}

func TestCompressPublicKeyRoundTrip(t *testing.T) {
	for i := 0; i < 20; i++ {
		k, _ := GenerateAPIKey()
		pub, err := ParsePublicKey(k.PublicKeyHex())
		if err != nil {
			t.Fatal(err)
		}
		again, _ := CompressPublicKey(pub)
		if again != k.PublicKeyHex() {
			t.Fatalf("round trip %s → %s", k.PublicKeyHex(), again)
		}
	}
}
