package client

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// StampHeader carries the API-key stamp of a request.
const StampHeader = "X-Stamp"

// StampSchemeP256 is the only stamp scheme this client produces.
const StampSchemeP256 = "SIGNATURE_SCHEME_TK_API_P256"

// Stamp is the JSON object that, base64url-encoded without padding, is the
// value of the X-Stamp header.
type Stamp struct {
	PublicKey string `json:"publicKey"`
	Scheme    string `json:"scheme"`
	Signature string `json:"signature"`
}

// APIKey is a P-256 API key pair.
type APIKey struct {
	priv   *ecdsa.PrivateKey
	pubHex string
}

// ParseAPIKey decodes the key pair (compressed SEC1 public key in hex,
// 32-byte private scalar in hex) and checks that they belong together, so a
// mismatched pair fails here rather than as a 401 from the service. Its
// errors are *ConfigError; a mismatch is about FieldAPIPrivateKey.
func ParseAPIKey(publicHex, privateHex string) (*APIKey, error) {
	publicHex = strings.ToLower(strings.TrimSpace(publicHex))
	if publicHex == "" {
		return nil, configError(FieldAPIPublicKey, "API public key is required")
	}
	if strings.TrimSpace(privateHex) == "" {
		return nil, configError(FieldAPIPrivateKey, "API private key is required")
	}
	pub, err := ParsePublicKey(publicHex)
	if err != nil {
		return nil, &ConfigError{Field: FieldAPIPublicKey, Err: err}
	}
	raw, err := hex.DecodeString(strings.TrimSpace(privateHex))
	if err != nil || len(raw) != 32 {
		// The value is secret: never echo it.
		return nil, configError(FieldAPIPrivateKey, "API private key must be 64 hex characters (a 32-byte P-256 scalar)")
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
	if err != nil {
		return nil, configError(FieldAPIPrivateKey, "API private key is not a valid P-256 scalar")
	}
	if !priv.PublicKey.Equal(pub) {
		return nil, configError(FieldAPIPrivateKey, "API private key does not match API public key %s", publicHex)
	}
	return &APIKey{priv: priv, pubHex: publicHex}, nil
}

// GenerateAPIKey makes a new random key pair, for tests and the emulator.
func GenerateAPIKey() (*APIKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	pubHex, err := CompressPublicKey(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	return &APIKey{priv: priv, pubHex: pubHex}, nil
}

// PublicKeyHex is the compressed public key in lowercase hex.
func (k *APIKey) PublicKeyHex() string { return k.pubHex }

// PrivateKeyHex is the private scalar in lowercase hex. Handle with care.
func (k *APIKey) PrivateKeyHex() string {
	b, err := k.priv.Bytes()
	if err != nil { // cannot happen for a P-256 key
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Stamp signs exactly body and returns the X-Stamp header value: the Stamp
// JSON, base64url without padding. The signature is ECDSA P-256 over
// SHA-256(body), ASN.1 DER, lowercase hex.
func (k *APIKey) Stamp(body []byte) (string, error) {
	digest := sha256.Sum256(body)
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, digest[:])
	if err != nil {
		return "", fmt.Errorf("signing request: %w", err)
	}
	js, err := json.Marshal(Stamp{PublicKey: k.pubHex, Scheme: StampSchemeP256, Signature: hex.EncodeToString(sig)})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(js), nil
}

// ParsePublicKey decodes a compressed SEC1 P-256 public key written in hex.
func ParsePublicKey(publicHex string) (*ecdsa.PublicKey, error) {
	raw, err := hex.DecodeString(publicHex)
	if err != nil || len(raw) != 33 || (raw[0] != 2 && raw[0] != 3) {
		return nil, fmt.Errorf("API public key %q must be a compressed P-256 point: 66 hex characters starting with 02 or 03", publicHex)
	}
	x, y := elliptic.UnmarshalCompressed(elliptic.P256(), raw)
	if x == nil {
		return nil, fmt.Errorf("API public key %q is not a point on P-256", publicHex)
	}
	uncompressed := make([]byte, 65)
	uncompressed[0] = 4
	x.FillBytes(uncompressed[1:33])
	y.FillBytes(uncompressed[33:])
	return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), uncompressed)
}

// CompressPublicKey writes a P-256 public key as compressed SEC1 hex.
func CompressPublicKey(pub *ecdsa.PublicKey) (string, error) {
	b, err := pub.Bytes() // 0x04 || X || Y
	if err != nil {
		return "", err
	}
	if len(b) != 65 {
		return "", errors.New("not a P-256 public key")
	}
	out := make([]byte, 33)
	out[0] = 2 | (b[64] & 1)
	copy(out[1:], b[1:33])
	return hex.EncodeToString(out), nil
}
