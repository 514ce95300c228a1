package client

import (
	"strings"
	"testing"
)

// FuzzParseAPIKey parses arbitrary key pairs. It asserts: no panic; a
// refusal has a message that never echoes the private key; an accepted
// pair is written back canonically (lower-case hex, no spaces), parses
// again to the same key, and signs stamps that verify independently.
func FuzzParseAPIKey(f *testing.F) {
	for _, pair := range [][2]string{
		{fuzzPublicKey, fuzzPrivateKey},
		{fuzzPublicKey2, fuzzPrivateKey2},
		{strings.ToUpper(fuzzPublicKey), strings.ToUpper(fuzzPrivateKey)},
		{" " + fuzzPublicKey + "\n", "\t" + fuzzPrivateKey + " "},
		{fuzzPublicKey, fuzzPrivateKey2},                       // mismatched
		{"03" + fuzzPublicKey[2:], fuzzPrivateKey},             // the other parity
		{"04" + fuzzPublicKey[2:], fuzzPrivateKey},             // not compressed
		{fuzzPublicKey[:64], fuzzPrivateKey},                   // short
		{fuzzPublicKey, fuzzPrivateKey[:63]},                   // odd length
		{fuzzPublicKey, fuzzPrivateKey + "00"},                 // long
		{fuzzPublicKey, strings.Repeat("0", 64)},               // zero scalar
		{fuzzPublicKey, p256Order},                             // the order itself
		{fuzzPublicKey, strings.Repeat("f", 64)},               // above the order
		{"02" + strings.Repeat("f", 64), fuzzPrivateKey},       // x beyond the field
		{"02" + strings.Repeat("0", 63) + "5", fuzzPrivateKey}, // x with no point
		{fuzzPublicKey, "zz" + fuzzPrivateKey[2:]},             // not hex
		{"", fuzzPrivateKey},
		{fuzzPublicKey, ""},
		{"", ""},
		{"0x" + fuzzPublicKey, "0x" + fuzzPrivateKey},
	} {
		f.Add(pair[0], pair[1])
	}
	body := []byte(`{"organizationId":"org-1"}`)
	f.Fuzz(func(t *testing.T, pub, priv string) {
		k, err := ParseAPIKey(pub, priv)
		if err != nil {
			msg := err.Error()
			if strings.TrimSpace(msg) == "" {
				t.Fatalf("ParseAPIKey(%q, %q): empty error message", pub, priv)
			}
			secret := strings.ToLower(strings.TrimSpace(priv))
			if len(secret) >= 16 && isHex(secret) && !strings.Contains(strings.ToLower(pub), secret) &&
				strings.Contains(strings.ToLower(msg), secret) {
				t.Fatalf("ParseAPIKey(%q, %q): error %q echoes the private key", pub, priv, msg)
			}
			return
		}
		if got, want := k.PublicKeyHex(), strings.ToLower(strings.TrimSpace(pub)); got != want {
			t.Fatalf("PublicKeyHex = %q, want %q", got, want)
		}
		if got, want := k.PrivateKeyHex(), strings.ToLower(strings.TrimSpace(priv)); got != want {
			t.Fatalf("PrivateKeyHex = %q, want %q", got, want)
		}
		again, err := ParseAPIKey(k.PublicKeyHex(), k.PrivateKeyHex())
		if err != nil || again.PublicKeyHex() != k.PublicKeyHex() || !again.priv.Equal(k.priv) {
			t.Fatalf("the canonical form of an accepted key does not parse back: %v", err)
		}
		stamp, err := k.Stamp(body)
		if err != nil {
			t.Fatalf("Stamp: %v", err)
		}
		if !verifyStampIndependently(t, stamp, body, k.PublicKeyHex()) {
			t.Fatalf("the stamp of an accepted key does not verify")
		}
	})
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
