// Package activityrequest builds what the policies see of an activity
// from its parameters: activity.params (the catalogue's fields of its
// type, from the parameters' wire names) and the signing payload's
// keywords (eth.tx, eth.eip_712, decoded by internal/payload). The
// emulator builds a submitted activity's request with it, and the
// provider's replay a listed one's: one reading, so that both see the
// same request.
package activityrequest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Params are the activity.params fields activityType exposes, by the
// catalogue's request table (reference §8.5), taken from the wire
// parameters: each field's wire name is the field in lower camel case
// (hash_function is hashFunction). Every other activity exposes none:
// reading one is an evaluation error.
func Params(activityType string, wire map[string]any) map[string]any {
	out := map[string]any{}
	for _, field := range policylang.LookupRequestModel(activityType).Params {
		if v, ok := wire[wireName(field)]; ok {
			out[field] = v
		}
	}
	return out
}

func wireName(field string) string {
	words := strings.Split(field, "_")
	for i := 1; i < len(words); i++ {
		words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
	}
	return strings.Join(words, "")
}

// Signs tells whether activities of activityType sign with a key that
// their signWith parameter names: their requests carry private_key.
func Signs(activityType string) bool {
	return activityType == client.OpSignTransaction.Type || activityType == client.OpSignRawPayload.Type
}

// Payload is what a signing activity's parameters carry, decoded: an
// Ethereum transaction (sign_transaction, TRANSACTION_TYPE_ETHEREUM) or
// EIP-712 typed data (sign_raw_payload, PAYLOAD_ENCODING_EIP712); neither
// for other types, chains and encodings, which set no keyword.
type Payload struct {
	Tx    *payload.EthTx
	Typed *payload.EIP712
}

// DecodePayload decodes the payload of an activity of activityType from
// its parameters (JSON). Its error says which field does not decode.
func DecodePayload(activityType string, params json.RawMessage) (Payload, error) {
	var out Payload
	switch activityType {
	case client.OpSignTransaction.Type:
		var p client.SignTransactionParams
		if err := json.Unmarshal(params, &p); err != nil {
			return out, fmt.Errorf("parameters: %w", err)
		}
		if p.Type == payload.TxTypeEthereum {
			tx, err := payload.DecodeEthTx(p.UnsignedTransaction)
			if err != nil {
				return out, fmt.Errorf("parameters.unsignedTransaction %w", err)
			}
			out.Tx = tx
		}
	case client.OpSignRawPayload.Type:
		var p client.SignRawPayloadParams
		if err := json.Unmarshal(params, &p); err != nil {
			return out, fmt.Errorf("parameters: %w", err)
		}
		if p.Encoding == payload.EncodingEIP712 {
			typed, err := payload.DecodeEIP712(p.Payload)
			if err != nil {
				return out, fmt.Errorf("parameters.payload %w", err)
			}
			out.Typed = typed
		}
	}
	return out, nil
}

// Set sets eth.tx (from, the signing key's Ethereum address, "" when it
// has none, which leaves eth.tx.from out) or eth.eip_712 on req. The
// values are built within the catalogue's types (an integer beyond the
// language's int is left out), so SetKeyword does not refuse them; if it
// did, the keyword would stay absent and a policy reading it would err,
// which never allows.
func (p Payload) Set(req *policyset.Request, from string) {
	if p.Tx != nil {
		_ = req.SetKeyword("eth.tx", p.Tx.Keyword(from))
	}
	if p.Typed != nil {
		_ = req.SetKeyword("eth.eip_712", p.Typed.Keyword())
	}
}
