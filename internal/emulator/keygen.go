package emulator

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// Curves of v1Curve.
const (
	curveSecp256k1 = "CURVE_SECP256K1"
	curveEd25519   = "CURVE_ED25519"
	curveP256      = "CURVE_P256"
)

// Address formats the emulator derives (v1AddressFormat has 38 values; the
// others need chain-specific encodings the emulator does not implement).
const (
	addressUncompressed = "ADDRESS_FORMAT_UNCOMPRESSED"
	addressCompressed   = "ADDRESS_FORMAT_COMPRESSED"
	addressEthereum     = "ADDRESS_FORMAT_ETHEREUM"
	addressSolana       = "ADDRESS_FORMAT_SOLANA"
)

// Hash functions of sign_raw_payload.
const (
	hashNoOp          = "HASH_FUNCTION_NO_OP"
	hashSHA256        = "HASH_FUNCTION_SHA256"
	hashKeccak256     = "HASH_FUNCTION_KECCAK256"
	hashNotApplicable = "HASH_FUNCTION_NOT_APPLICABLE"
)

var keyCurves = []string{curveSecp256k1, curveEd25519, curveP256}

// curveAddressFormats lists, per curve, the formats the emulator derives.
// An ed25519 key has one 32-byte encoding, which is the "compressed" one;
// there is no uncompressed form to offer, so it is refused rather than faked.
var curveAddressFormats = map[string][]string{
	curveSecp256k1: {addressUncompressed, addressCompressed, addressEthereum},
	curveP256:      {addressUncompressed, addressCompressed},
	curveEd25519:   {addressCompressed, addressSolana},
}

// keyPair is a private key of one of the three curves.
type keyPair struct {
	curve string
	secp  *secp256k1.PrivateKey
	p256  *ecdsa.PrivateKey
	ed    ed25519.PrivateKey
}

// generateKeyPair makes a fresh key from crypto/rand.
func generateKeyPair(curve string) (*keyPair, error) {
	switch curve {
	case curveSecp256k1:
		k, err := secp256k1.GeneratePrivateKey()
		return &keyPair{curve: curve, secp: k}, err
	case curveP256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		return &keyPair{curve: curve, p256: k}, err
	case curveEd25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return &keyPair{curve: curve, ed: k}, err
	}
	return nil, fmt.Errorf("unknown curve %q", curve)
}

// loadKeyPair rebuilds a key from the 32-byte secret that secretHex returns
// (the scalar for ECDSA curves, the seed for ed25519).
func loadKeyPair(curve, secretHex string) (*keyPair, error) {
	b, err := hex.DecodeString(secretHex)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("stored secret of the %s key is not 32 bytes of hex", curve)
	}
	switch curve {
	case curveSecp256k1:
		return &keyPair{curve: curve, secp: secp256k1.PrivKeyFromBytes(b)}, nil
	case curveP256:
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), b)
		return &keyPair{curve: curve, p256: k}, err
	case curveEd25519:
		return &keyPair{curve: curve, ed: ed25519.NewKeyFromSeed(b)}, nil
	}
	return nil, fmt.Errorf("unknown curve %q", curve)
}

func (k *keyPair) secretHex() string {
	switch k.curve {
	case curveSecp256k1:
		return hex.EncodeToString(k.secp.Serialize())
	case curveP256:
		b, _ := k.p256.Bytes() // only fails for curves other than the NIST ones
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(k.ed.Seed())
}

// uncompressed is the SEC1 uncompressed point (0x04 || X || Y).
func (k *keyPair) uncompressed() []byte {
	if k.curve == curveSecp256k1 {
		return k.secp.PubKey().SerializeUncompressed()
	}
	b, _ := k.p256.PublicKey.Bytes()
	return b
}

// compressed is the SEC1 compressed point for ECDSA keys and the 32-byte
// key for ed25519.
func (k *keyPair) compressed() []byte {
	switch k.curve {
	case curveSecp256k1:
		return k.secp.PubKey().SerializeCompressed()
	case curveP256:
		u := k.uncompressed()
		return append([]byte{0x02 | u[64]&1}, u[1:33]...)
	}
	return slices.Clone(ed25519Public(k.ed))
}

// ed25519Public is the public half of an Ed25519 private key.
// ed25519.PrivateKey.Public always returns an ed25519.PublicKey.
func ed25519Public(k ed25519.PrivateKey) ed25519.PublicKey {
	pub, ok := k.Public().(ed25519.PublicKey)
	if !ok {
		panic(fmt.Sprintf("ed25519.PrivateKey.Public returned %T", k.Public()))
	}
	return pub
}

// publicKeyHex is the key's publicKey as listed: the compressed form.
func (k *keyPair) publicKeyHex() string { return hex.EncodeToString(k.compressed()) }

// address derives one address; callers have checked the format fits the
// curve (see checkAddressFormat), so a mismatch here is a bug.
func (k *keyPair) address(format string) (string, error) {
	if !slices.Contains(curveAddressFormats[k.curve], format) {
		return "", fmt.Errorf("address format %s does not fit curve %s", format, k.curve)
	}
	switch format {
	case addressUncompressed:
		return hex.EncodeToString(k.uncompressed()), nil
	case addressCompressed:
		return hex.EncodeToString(k.compressed()), nil
	case addressEthereum:
		return ethereumAddress(k.uncompressed()[1:]), nil
	}
	return base58Encode(k.compressed()), nil // Solana: the ed25519 key itself
}

// checkAddressFormat is the 400 for a format the emulator cannot derive for
// the curve, naming what it can.
func checkAddressFormat(field, curve, format string) *apiError {
	ok := curveAddressFormats[curve]
	if slices.Contains(ok, format) {
		return nil
	}
	return errInvalid("field %s: the emulator does not derive %q for %s; it supports %s for that curve",
		field, format, curve, strings.Join(ok, ", "))
}

// ethereumAddress is the EIP-55 checksummed last 20 bytes of the
// Keccak-256 of the 64-byte X || Y.
func ethereumAddress(xy []byte) string {
	h := keccak256(xy)
	return eip55(hex.EncodeToString(h[12:]))
}

// eip55 capitalizes each hex letter whose nibble in the Keccak-256 of the
// lowercase address is 8 or more.
func eip55(lowerHex string) string {
	sum := keccak256([]byte(lowerHex))
	out := []byte(lowerHex)
	for i, c := range out {
		nibble := sum[i/2] >> 4
		if i%2 == 1 {
			nibble = sum[i/2] & 0x0f
		}
		if c >= 'a' && c <= 'f' && nibble >= 8 {
			out[i] = c - 'a' + 'A'
		}
	}
	return "0x" + string(out)
}

func keccak256(b []byte) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	return h.Sum(nil)
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Encode is the Bitcoin-alphabet base58 (Solana addresses): each
// leading zero byte becomes '1', the rest is the number in base 58.
func base58Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// digits holds the value in base 58, least significant first.
	var digits []byte
	for _, v := range b[zeros:] {
		carry := int(v)
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, 0, zeros+len(digits))
	for range zeros {
		out = append(out, '1')
	}
	for i := len(digits) - 1; i >= 0; i-- {
		out = append(out, base58Alphabet[digits[i]])
	}
	return string(out)
}

// rawSignature is a signature as sign_raw_payload returns it, in hex.
type rawSignature struct{ r, s, v string }

// errSignRequest marks a signing request that does not fit the key (a hash
// function the curve does not take, a NO_OP payload of the wrong size): the
// activity fails with INVALID_ARGUMENT, not INTERNAL.
var errSignRequest = errors.New("invalid signing request")

// sign signs msg (the decoded payload). ECDSA keys sign the digest named by
// hashFunction; ed25519 signs msg itself (RFC 8032 has no pre-hash here).
func (k *keyPair) sign(msg []byte, hashFunction string) (rawSignature, error) {
	if k.curve == curveEd25519 {
		if hashFunction != hashNotApplicable {
			return rawSignature{}, fmt.Errorf("%w: ed25519 keys sign the payload itself, so hashFunction must be %s, not %s",
				errSignRequest, hashNotApplicable, hashFunction)
		}
		sig := ed25519.Sign(k.ed, msg)
		return rawSignature{r: hex.EncodeToString(sig[:32]), s: hex.EncodeToString(sig[32:]), v: "00"}, nil
	}
	var digest []byte
	switch hashFunction {
	case hashNoOp:
		if len(msg) != 32 {
			return rawSignature{}, fmt.Errorf("%w: with %s the payload is the digest and must be 32 bytes; it is %d bytes",
				errSignRequest, hashNoOp, len(msg))
		}
		digest = msg
	case hashSHA256:
		sum := sha256.Sum256(msg)
		digest = sum[:]
	case hashKeccak256:
		digest = keccak256(msg)
	default:
		return rawSignature{}, fmt.Errorf("%w: %s is only for ed25519 keys; a %s key needs %s, %s or %s",
			errSignRequest, hashFunction, k.curve, hashNoOp, hashSHA256, hashKeccak256)
	}
	if k.curve == curveSecp256k1 {
		// SignCompact: recovery byte (27 + id, uncompressed flag off), R, S;
		// RFC 6979 nonces and low S, as Ethereum expects.
		c := secpecdsa.SignCompact(k.secp, digest, false)
		return rawSignature{r: hex.EncodeToString(c[1:33]), s: hex.EncodeToString(c[33:65]), v: fmt.Sprintf("%02x", c[0]-27)}, nil
	}
	r, s, err := ecdsa.Sign(rand.Reader, k.p256, digest)
	if err != nil {
		return rawSignature{}, err
	}
	return rawSignature{r: hex.EncodeToString(r.FillBytes(make([]byte, 32))), s: hex.EncodeToString(s.FillBytes(make([]byte, 32))), v: "00"}, nil
}
