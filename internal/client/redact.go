package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Redacted stands in for the value of a secret field (see secretFields) in
// an activity shown to a user. It is a fixed text, never a hash: a hash of
// a low-entropy secret such as an OTP code would give the code away.
const Redacted = "(redacted)"

// secretFieldKeys holds the secretFields by their names as secretFieldKey
// spells them.
var secretFieldKeys = func() map[string]SecretField {
	keys := make(map[string]SecretField, len(secretFields))
	for _, f := range secretFields {
		keys[secretFieldKey(f.Name)] = f
	}
	return keys
}()

// secretFieldKey folds a member's name so that its camelCase and snake_case
// spellings (oidcToken, oidc_token) are one.
func secretFieldKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

// IsSecretField says whether a member named name carries a secret.
func IsSecretField(name string) bool {
	_, ok := secretFieldKeys[secretFieldKey(name)]
	return ok
}

// redaction is what redacting found: whether anything was redacted, and
// whether a low-entropy secret was (see SecretField.LowEntropy).
type redaction struct{ changed, lowEntropy bool }

// RedactActivity returns a copy of act in which the value of every secret
// field is Redacted, for where an activity becomes something a user sees:
// a Terraform value, a diagnostic. The intent, the result, every vote's
// message (the requester's is the body it signed), every app proof's
// payload and the failure's details are redacted at any depth; the shape
// stays (an object or a list keeps its members, each scalar becomes
// Redacted, a null stays null).
//
// A message or payload with no secret field in it is kept byte for byte,
// so that it can still be checked against its signature; one that had is
// written again as compact JSON with sorted keys. One that is not JSON
// cannot be searched for secret fields, so it is replaced whole.
//
// A low-entropy secret (an OTP code, a card's number or CVV) could be
// found again by trying every value against what hashes or signs the text
// that held it: the fingerprint (a hash of the request body), the votes'
// signatures and messages (an approval's message holds the fingerprint) and
// the app proofs. When an activity holds one, those are Redacted too.
//
// act itself is not changed: the client's own uses of an activity (adopting
// it, finding a lost submission by the hash of its requester's message) need
// it as the service sent it.
func RedactActivity(act *Activity) *Activity {
	if act == nil {
		return nil
	}
	var r redaction
	out := *act
	out.Intent, out.Result = redactMembers(act.Intent, &r), redactMembers(act.Result, &r)
	if act.Votes != nil {
		out.Votes = make([]Vote, len(act.Votes))
		for i, v := range act.Votes {
			v.Message = redactText(v.Message, &r)
			out.Votes[i] = v
		}
	}
	if act.AppProofs != nil {
		out.AppProofs = make([]AppProof, len(act.AppProofs))
		for i, p := range act.AppProofs {
			p.ProofPayload = redactText(p.ProofPayload, &r)
			out.AppProofs[i] = p
		}
	}
	if act.Failure != nil {
		f := *act.Failure
		if f.Details != nil {
			f.Details = make([]json.RawMessage, len(act.Failure.Details))
			for i, d := range act.Failure.Details {
				f.Details[i] = redactRaw(d, &r)
			}
		}
		out.Failure = &f
	}
	if r.lowEntropy {
		out.Fingerprint = Redacted
		for i := range out.Votes {
			out.Votes[i].Message, out.Votes[i].Signature = Redacted, Redacted
		}
		for i := range out.AppProofs {
			out.AppProofs[i].ProofPayload, out.AppProofs[i].Signature = Redacted, Redacted
		}
	}
	return &out
}

// redactText redacts the secret fields of text, a JSON document, adding
// what it found to r: text without any comes back as it is, and text that
// is not JSON as Redacted, since it might hold anything, a low-entropy
// secret too. The empty text holds nothing.
func redactText(text string, r *redaction) string {
	if text == "" {
		return text
	}
	tree, err := decodeJSONNumbers([]byte(text))
	if err != nil {
		r.changed, r.lowEntropy = true, true
		return Redacted
	}
	var found redaction
	tree = redactTree(tree, &found)
	if !found.changed {
		return text
	}
	r.changed, r.lowEntropy = true, r.lowEntropy || found.lowEntropy
	b, err := encodeJSON(tree)
	if err != nil {
		return Redacted
	}
	return string(b)
}

// redactMembers redacts an intent or a result: the value of a secret member,
// and the secret fields within every other member.
func redactMembers(m map[string]json.RawMessage, r *redaction) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, raw := range m {
		if f, ok := secretFieldKeys[secretFieldKey(k)]; ok {
			raw = redactWhole(raw)
			r.changed, r.lowEntropy = true, r.lowEntropy || f.LowEntropy
		} else {
			raw = redactRaw(raw, r)
		}
		out[k] = raw
	}
	return out
}

// redactRaw is redactText for a member of an activity, which is JSON since
// the activity was decoded from it; a member that is not JSON all the same
// becomes the JSON string Redacted.
func redactRaw(raw json.RawMessage, r *redaction) json.RawMessage {
	if raw == nil {
		return nil
	}
	text := redactText(string(raw), r)
	if text == string(raw) {
		return raw
	}
	if text == Redacted {
		b, _ := json.Marshal(Redacted)
		return b
	}
	return json.RawMessage(text)
}

// redactWhole redacts raw as the value of a secret member.
func redactWhole(raw json.RawMessage) json.RawMessage {
	tree, err := decodeJSONNumbers(raw)
	if err == nil {
		if b, err := encodeJSON(redactValue(tree)); err == nil {
			return b
		}
	}
	b, _ := json.Marshal(Redacted)
	return b
}

// redactTree returns v, a decoded JSON document, with the values of its
// secret members redacted, adding what it found to r. v is not changed.
func redactTree(v any, r *redaction) any {
	inside := func(x any) any { return redactTree(x, r) }
	out, _ := rebuildJSON(v, func(name string, x any) any {
		f, ok := secretFieldKeys[secretFieldKey(name)]
		if !ok {
			return inside(x)
		}
		if !isAllNull(x) {
			r.changed, r.lowEntropy = true, r.lowEntropy || f.LowEntropy
		}
		return redactValue(x)
	}, inside)
	return out
}

// redactValue is a secret member's value with every scalar in it Redacted
// and every null kept.
func redactValue(v any) any {
	if v == nil {
		return nil
	}
	out, container := rebuildJSON(v, func(_ string, x any) any { return redactValue(x) }, redactValue)
	if !container {
		return Redacted
	}
	return out
}

// isAllNull: v holds no scalar but null, so redactValue leaves it as it is.
func isAllNull(v any) bool {
	children, container := jsonChildren(v)
	if !container {
		return v == nil
	}
	for _, x := range children {
		if !isAllNull(x) {
			return false
		}
	}
	return true
}

// decodeJSONNumbers decodes one JSON document, numbers kept exactly as
// json.Number; anything after it is an error.
func decodeJSONNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON document")
	}
	return v, nil
}

// encodeJSON writes v compact, keys sorted, with <, > and & as they are.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
