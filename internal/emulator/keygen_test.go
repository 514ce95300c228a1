package emulator

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// Known private key → address pairs, each confirmed by several independent
// public sources (web3.js/eth-account docs and test suites): the key 1 is
// the generator point, whose compressed public key is G itself.
func TestEthereumAddressKnownKeys(t *testing.T) {
	for _, tt := range []struct{ secret, address, compressed string }{
		{strings.Repeat("0", 63) + "1", "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
			"0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"},
		{"4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", ""},
	} {
		kp, err := loadKeyPair(curveSecp256k1, tt.secret)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := kp.address(addressEthereum); got != tt.address {
			t.Errorf("secret %s: address %s, want %s", tt.secret, got, tt.address)
		}
		if got, _ := kp.address(addressCompressed); tt.compressed != "" && got != tt.compressed {
			t.Errorf("secret %s: compressed %s, want %s", tt.secret, got, tt.compressed)
		}
	}
}

// The test cases of EIP-55 itself: mixed case, all caps, all lower.
func TestEIP55Checksum(t *testing.T) {
	for _, want := range []string{
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
		"0x52908400098527886E0F7030069857D2E4169EE7", "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
		"0xde709f2102306220921060314715629080e2fb77", "0x27b1fdb04752bbc536007a920d24acb045561c26",
	} {
		if got := eip55(strings.ToLower(want[2:])); got != want {
			t.Errorf("eip55 = %s, want %s", got, want)
		}
	}
}

// Vectors of draft-msporny-base58 and the Solana system program (32 zero
// bytes), which exercises the leading-zero rule.
func TestBase58(t *testing.T) {
	for _, tt := range []struct {
		in   []byte
		want string
	}{
		{[]byte("Hello World!"), "2NEpo7TZRRrLZSi2U"},
		{[]byte("The quick brown fox jumps over the lazy dog."), "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z"},
		{[]byte{0x00, 0x00, 0x28, 0x7f, 0xb4, 0xcd}, "11233QC4"},
		{make([]byte, 32), strings.Repeat("1", 32)},
		{[]byte{}, ""},
	} {
		if got := base58Encode(tt.in); got != tt.want {
			t.Errorf("base58(%x) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestKeyGenerationPerCurve generates a key of each curve, reloads it from
// its stored secret and checks every address format against the public key.
func TestKeyGenerationPerCurve(t *testing.T) {
	for _, curve := range keyCurves {
		t.Run(curve, func(t *testing.T) {
			kp, err := generateKeyPair(curve)
			if err != nil {
				t.Fatal(err)
			}
			again, err := loadKeyPair(curve, kp.secretHex())
			if err != nil || again.publicKeyHex() != kp.publicKeyHex() {
				t.Fatalf("reloaded key differs: %v", err)
			}
			pub, _ := hex.DecodeString(kp.publicKeyHex())
			for _, f := range curveAddressFormats[curve] {
				a, err := kp.address(f)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				switch f {
				case addressCompressed:
					wantLen := map[string]int{curveSecp256k1: 66, curveP256: 66, curveEd25519: 64}[curve]
					if len(a) != wantLen || a != kp.publicKeyHex() {
						t.Errorf("compressed %s", a)
					}
					if curve != curveEd25519 && a[:2] != "02" && a[:2] != "03" {
						t.Errorf("compressed prefix %s", a[:2])
					}
				case addressUncompressed:
					u, _ := hex.DecodeString(a)
					if len(u) != 65 || u[0] != 4 || !slices.Equal(u[1:33], pub[1:]) || pub[0] != 2+u[64]&1 {
						t.Errorf("uncompressed %s does not match compressed %x", a, pub)
					}
				case addressEthereum:
					u, _ := hex.DecodeString(must(kp.address(addressUncompressed)))
					if a != ethereumAddress(u[1:]) || len(a) != 42 {
						t.Errorf("ethereum %s", a)
					}
				case addressSolana:
					if a != base58Encode(pub) {
						t.Errorf("solana %s", a)
					}
				}
			}
		})
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

func TestAddressFormatMustFitCurve(t *testing.T) {
	for _, tt := range []struct{ curve, format, want string }{
		{curveP256, addressEthereum, "ADDRESS_FORMAT_UNCOMPRESSED, ADDRESS_FORMAT_COMPRESSED for that curve"},
		{curveEd25519, addressEthereum, "ADDRESS_FORMAT_COMPRESSED, ADDRESS_FORMAT_SOLANA"},
		{curveEd25519, addressUncompressed, "does not derive"},
		{curveSecp256k1, addressSolana, "ADDRESS_FORMAT_ETHEREUM"},
		{curveSecp256k1, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", "does not derive"},
	} {
		e := checkAddressFormat("f", tt.curve, tt.format)
		if e == nil || !strings.Contains(e.message, tt.want) || !strings.Contains(e.message, "field f") {
			t.Errorf("%s/%s: %v, want a 400 containing %q", tt.curve, tt.format, e, tt.want)
		}
	}
	for curve, formats := range curveAddressFormats {
		for _, f := range formats {
			if e := checkAddressFormat("f", curve, f); e != nil {
				t.Errorf("%s/%s refused: %v", curve, f, e)
			}
		}
	}
}

// verifyRaw checks a sign_raw_payload signature with the public key only.
func verifyRaw(t *testing.T, curve, publicHex string, msg []byte, hashFunction string, r, s, v string) {
	t.Helper()
	pub, _ := hex.DecodeString(publicHex)
	rb, _ := hex.DecodeString(r)
	sb, _ := hex.DecodeString(s)
	if len(rb) != 32 || len(sb) != 32 {
		t.Fatalf("r, s = %s, %s: want 32 bytes each", r, s)
	}
	digest := msg
	switch hashFunction {
	case hashSHA256:
		sum := sha256.Sum256(msg)
		digest = sum[:]
	case hashKeccak256:
		digest = keccak256(msg)
	}
	switch curve {
	case curveEd25519:
		if v != "00" || !ed25519.Verify(ed25519.PublicKey(pub), msg, append(rb, sb...)) {
			t.Fatal("ed25519 signature does not verify")
		}
	case curveP256:
		x, y := elliptic.UnmarshalCompressed(elliptic.P256(), pub)
		if x == nil {
			t.Fatalf("public key %x is not a compressed P-256 point", pub)
		}
		key, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x.FillBytes(make([]byte, 32))...), y.FillBytes(make([]byte, 32))...))
		if err != nil {
			t.Fatal(err)
		}
		if v != "00" || !ecdsa.Verify(key, digest, new(big.Int).SetBytes(rb), new(big.Int).SetBytes(sb)) {
			t.Fatal("P-256 signature does not verify")
		}
	case curveSecp256k1:
		if v != "00" && v != "01" {
			t.Fatalf("v = %s, want 00 or 01", v)
		}
		// Recovery with v must give back the key: v is the recovery id.
		id := byte(0)
		if v == "01" {
			id = 1
		}
		compact := append(append([]byte{27 + id}, rb...), sb...)
		got, _, err := secpecdsa.RecoverCompact(compact, digest)
		if err != nil || !got.IsEqual(mustSecpKey(t, pub)) {
			t.Fatalf("recovered key %v, %v", got, err)
		}
	}
}

func mustSecpKey(t *testing.T, b []byte) *secp256k1.PublicKey {
	k, err := secp256k1.ParsePubKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSignVerifiesPerCurveAndHash(t *testing.T) {
	msg32 := sha256.Sum256([]byte("digest"))
	for _, tt := range []struct {
		curve, hash string
		msg         []byte
	}{
		{curveSecp256k1, hashNoOp, msg32[:]},
		{curveSecp256k1, hashSHA256, []byte("hello")},
		{curveSecp256k1, hashKeccak256, []byte("hello")},
		{curveP256, hashNoOp, msg32[:]},
		{curveP256, hashSHA256, []byte("hello")},
		{curveP256, hashKeccak256, []byte("hello")},
		{curveEd25519, hashNotApplicable, []byte("hello")},
	} {
		kp, _ := generateKeyPair(tt.curve)
		for range 4 { // v varies with the nonce; a few runs cover both ids
			sig, err := kp.sign(tt.msg, tt.hash)
			if err != nil {
				t.Fatalf("%s/%s: %v", tt.curve, tt.hash, err)
			}
			verifyRaw(t, tt.curve, kp.publicKeyHex(), tt.msg, tt.hash, sig.r, sig.s, sig.v)
		}
	}
}

func TestSignRefusesMismatchedHash(t *testing.T) {
	secp, _ := generateKeyPair(curveSecp256k1)
	ed, _ := generateKeyPair(curveEd25519)
	for _, tt := range []struct {
		kp         *keyPair
		hash, want string
		msg        []byte
	}{
		{secp, hashNoOp, "must be 32 bytes; it is 5 bytes", []byte("hello")},
		{secp, hashNotApplicable, "only for ed25519 keys", []byte("hello")},
		{ed, hashSHA256, "hashFunction must be HASH_FUNCTION_NOT_APPLICABLE", []byte("hello")},
	} {
		_, err := tt.kp.sign(tt.msg, tt.hash)
		if !errors.Is(err, errSignRequest) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s/%s: %v, want %q", tt.kp.curve, tt.hash, err, tt.want)
		}
	}
}
