package payload

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Decoding sign_raw_payload's payload for PAYLOAD_ENCODING_EIP712: the
// typed-data JSON (types, primaryType, domain, message) as
// eth_signTypedData_v4 takes it. What is signed is its EIP-712 hash, so
// the payload is valid only when go-ethereum can hash it.

// EncodingEIP712 is sign_raw_payload's encoding of EIP-712 typed data.
const EncodingEIP712 = "PAYLOAD_ENCODING_EIP712"

// EIP712 is a decoded typed-data payload and its EIP-712 hash.
type EIP712 struct {
	typed apitypes.TypedData
	hash  []byte
}

// DecodeEIP712 decodes and hashes payload. Its errors say what is wrong,
// for a 400 that names the field.
func DecodeEIP712(payload string) (*EIP712, error) {
	var d EIP712
	dec := json.NewDecoder(strings.NewReader(payload))
	// Numbers stay exact: a uint256 in the message exceeds float64.
	dec.UseNumber()
	if err := dec.Decode(&d.typed); err != nil {
		return nil, fmt.Errorf("is not EIP-712 typed data (a JSON object of types, primaryType, domain and message): %v", err)
	}
	if dec.More() {
		return nil, errors.New("has more after the typed data's JSON object")
	}
	if d.typed.PrimaryType == "" || d.typed.Types[d.typed.PrimaryType] == nil {
		return nil, fmt.Errorf("is not EIP-712 typed data: primaryType %q is not one of its types", d.typed.PrimaryType)
	}
	if d.typed.Types["EIP712Domain"] == nil {
		return nil, errors.New("is not EIP-712 typed data: its types have no EIP712Domain")
	}
	for k, v := range d.typed.Message {
		d.typed.Message[k] = exactNumbers(v)
	}
	hash, _, err := apitypes.TypedDataAndHash(d.typed)
	if err != nil {
		return nil, fmt.Errorf("is not valid EIP-712 typed data: %v", err)
	}
	d.hash = hash
	return &d, nil
}

// exactNumbers turns the JSON numbers in v into *big.Int, which
// go-ethereum's encoder takes; a number that is not whole stays a
// json.Number, which the encoder refuses.
func exactNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, ok := new(big.Int).SetString(x.String(), 10); ok {
			return n
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = exactNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = exactNumbers(e)
		}
		return out
	}
	return v
}

// Hash is the typed data's EIP-712 hash: what a key signs.
func (d *EIP712) Hash() []byte { return d.hash }

// Keyword is the typed data as eth.eip_712 (reference §7.3): the domain's
// fields that are present, and the message with each value as its declared
// type makes it, hex lower-case as the service normalizes it.
func (d *EIP712) Keyword() map[string]any {
	dom := d.typed.Domain
	domain := map[string]any{}
	if dom.Name != "" {
		domain["name"] = dom.Name
	}
	if dom.Version != "" {
		domain["version"] = dom.Version
	}
	if dom.ChainId != nil {
		domain["chain_id"] = new(big.Int).Set((*big.Int)(dom.ChainId))
	}
	if dom.VerifyingContract != "" {
		domain["verifying_contract"] = strings.ToLower(dom.VerifyingContract)
	}
	return map[string]any{"primary_type": d.typed.PrimaryType, "domain": domain, "message": d.structValue(d.typed.PrimaryType, d.typed.Message)}
}

// structValue is a struct's fields by their declared types. A field whose
// value cannot be a language value (an integer beyond int's 128 bits) is
// left out: a policy reading it gets an evaluation error, as the
// reference says such values cannot be compared.
func (d *EIP712) structValue(typ string, v map[string]any) map[string]any {
	out := map[string]any{}
	for _, f := range d.typed.Types[typ] {
		if x, ok := d.value(f.Type, v[f.Name]); ok {
			out[f.Name] = x
		}
	}
	return out
}

// value is one value of EIP-712 type typ as the language sees it; false
// when it has none. The payload was hashed, so v fits typ.
func (d *EIP712) value(typ string, v any) (any, bool) {
	if i := strings.LastIndexByte(typ, '['); i > 0 && strings.HasSuffix(typ, "]") {
		list, ok := v.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, len(list))
		for j, e := range list {
			x, ok := d.value(typ[:i], e)
			if !ok {
				return nil, false // a list with a hole would shift indexes
			}
			out[j] = x
		}
		return out, true
	}
	if d.typed.Types[typ] != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		return d.structValue(typ, m), true
	}
	switch {
	case typ == "address":
		s, ok := v.(string)
		if !ok || !common.IsHexAddress(s) {
			return nil, false
		}
		return strings.ToLower(common.HexToAddress(s).Hex()), true
	case typ == "bool", typ == "string":
		return v, v != nil
	case strings.HasPrefix(typ, "bytes"):
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		b, err := hexutil.Decode(s)
		if err != nil {
			return nil, false
		}
		return "0x" + hex.EncodeToString(b), true
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		n := eip712Integer(v)
		return n, n != nil && fitsLanguageInt(n)
	}
	return nil, false
}

// eip712Integer reads an integer as go-ethereum's encoder does: a number,
// or a decimal or 0x-hex string.
func eip712Integer(v any) *big.Int {
	switch x := v.(type) {
	case *big.Int:
		return new(big.Int).Set(x)
	case string:
		var n math.HexOrDecimal256
		if err := n.UnmarshalText([]byte(x)); err != nil {
			return nil
		}
		return (*big.Int)(&n)
	}
	return nil
}
