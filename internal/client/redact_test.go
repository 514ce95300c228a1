package client

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// snakeCase spells a camelCase member name as the service also accepts it
// in a request body: oidcToken as oidc_token.
func snakeCase(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// redactTestActivity is an activity in which the field name carries
// secret everywhere an activity can: nested in an intent and a result of
// versions the table does not know, in the requester's signed body (in
// camelCase and in snake_case), in an app proof's payload and in the
// failure's details. Another voter's message holds no secret, in the
// spacing it was signed with.
func redactTestActivity(t *testing.T, name, secret string) *Activity {
	t.Helper()
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	item := map[string]any{name: secret, "providerName": "kept"}
	return &Activity{
		ID: "act-1", Type: "ACTIVITY_TYPE_FUTURE_V9", Fingerprint: "fp-1",
		Intent: map[string]json.RawMessage{"futureIntentV9": json.RawMessage(js(map[string]any{
			"userId": "user-1", "items": []any{item}}))},
		Result: map[string]json.RawMessage{"futureResultV3": json.RawMessage(js(map[string]any{name: secret, "ids": []string{"id-1"}}))},
		Votes: []Vote{
			{ID: "vote-1", Selection: VoteApproved, Signature: "3045", Message: js(map[string]any{
				"type": "ACTIVITY_TYPE_FUTURE_V9", "timestampMs": "1700000000000", "organizationId": "org-1",
				"parameters": map[string]any{"items": []any{item}, snakeCase(name): secret}})},
			{ID: "vote-2", Selection: VoteApproved, Signature: "3047",
				Message: `{"type": "ACTIVITY_TYPE_APPROVE_ACTIVITY", "parameters": {"fingerprint": "fp-1"}}`},
		},
		AppProofs: []AppProof{{Scheme: "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256", Signature: "3046",
			ProofPayload: js(map[string]any{"digest": "kept", name: secret})}},
		Failure: &Status{Code: CodeInvalidArgument, Message: "kept", Details: []json.RawMessage{
			json.RawMessage(js(map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest", "field": map[string]any{name: secret}}))}},
	}
}

// TestRedactActivityCoversEverySecretField: for every listed field, no
// part of an activity keeps the secret, the marker takes its place, what
// is not secret stays, and the activity the client holds is not changed.
// A low-entropy secret also takes what hashes or signs it: the
// fingerprint, the votes' messages and signatures, the app proofs.
func TestRedactActivityCoversEverySecretField(t *testing.T) {
	if len(SecretFields()) == 0 {
		t.Fatal("no secret fields listed")
	}
	for _, f := range SecretFields() {
		t.Run(f.Name, func(t *testing.T) {
			secret := "S3CRET-" + f.Name + "-7Q2x9"
			act := redactTestActivity(t, f.Name, secret)
			before := redactTestActivity(t, f.Name, secret)

			got := RedactActivity(act)
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(out), "S3CRET") {
				t.Errorf("the secret survived:\n%s", out)
			}
			for _, kept := range []string{`"providerName":"kept"`, `"ids":["id-1"]`, "google.rpc.BadRequest"} {
				if !strings.Contains(string(out), kept) {
					t.Errorf("%s was lost:\n%s", kept, out)
				}
			}
			hashes := []string{got.Fingerprint, got.Votes[0].Signature, got.Votes[1].Signature, got.Votes[1].Message,
				got.AppProofs[0].Signature, got.AppProofs[0].ProofPayload}
			if f.LowEntropy {
				// intent, result, details; the six above; the requester's message.
				if n := strings.Count(string(out), Redacted); n != 10 {
					t.Errorf("%d markers, want 10:\n%s", n, out)
				}
				for _, h := range append(hashes, got.Votes[0].Message) {
					if h != Redacted {
						t.Errorf("%q kept with a low-entropy secret:\n%s", h, out)
					}
				}
				return
			}
			// intent, result, requester's message (twice), proof, details.
			if n := strings.Count(string(out), Redacted); n != 6 {
				t.Errorf("%d markers, want 6:\n%s", n, out)
			}
			if want := []string{"fp-1", "3045", "3047", act.Votes[1].Message, "3046"}; !reflect.DeepEqual(hashes[:5], want) {
				t.Errorf("got %q, want %q kept", hashes[:5], want)
			}
			if !strings.Contains(got.AppProofs[0].ProofPayload, `"digest":"kept"`) {
				t.Errorf("proof payload %s", got.AppProofs[0].ProofPayload)
			}
			var env Envelope
			if err := json.Unmarshal([]byte(got.Votes[0].Message), &env); err != nil || env.Type != "ACTIVITY_TYPE_FUTURE_V9" {
				t.Errorf("the redacted message is not the envelope any more (%v): %s", err, got.Votes[0].Message)
			}
			if got.Failure.Message != "kept" || got.Failure.Code != CodeInvalidArgument {
				t.Errorf("failure changed: %+v", got.Failure)
			}
			if !reflect.DeepEqual(act, before) {
				t.Error("RedactActivity changed the activity it was given")
			}
		})
	}
}

// A secret member's value keeps its shape: every scalar is the marker,
// nulls stay; a message that is not JSON is withheld whole.
func TestRedactText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"oidcToken":null,"keep":1}`, `{"oidcToken":null,"keep":1}`},
		{`{"secretPayloads":["a","b"],"x":"<&>"}`, `{"secretPayloads":["(redacted)","(redacted)"],"x":"<&>"}`},
		{`{"a":{"otpCode":123456,"n":18446744073709551617}}`, `{"a":{"n":18446744073709551617,"otpCode":"(redacted)"}}`},
		{`{"exportBundle":{"k":"v","z":[true,null]}}`, `{"exportBundle":{"k":"(redacted)","z":["(redacted)",null]}}`},
		{`{"OIDC_TOKEN":"t"}`, `{"OIDC_TOKEN":"(redacted)"}`},
		{`[{"cvv":"123"}]`, `[{"cvv":"(redacted)"}]`},
		{`not json oidcToken=abc`, Redacted},
		{`{"oidcToken":"a"} trailing`, Redacted},
		{`{ "spaced" : "kept" }`, `{ "spaced" : "kept" }`},
		{``, ``},
	} {
		if got := redactText(c.in, &redaction{}); got != c.want {
			t.Errorf("redactText(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// An intent or result member named for a secret (not the case in the
// reference, whose members are named for the type) is redacted whole.
func TestRedactActivityTopLevelMember(t *testing.T) {
	got := RedactActivity(&Activity{Result: map[string]json.RawMessage{"session": json.RawMessage(`"jwt"`)}})
	if s := string(got.Result["session"]); s != `"(redacted)"` {
		t.Errorf("got %s", s)
	}
	if RedactActivity(nil) != nil {
		t.Error("nil in, non-nil out")
	}
}

// A vote message that is not JSON may hold anything, a short secret too:
// it is withheld with everything that hashes or signs it.
func TestRedactActivityMessageNotJSON(t *testing.T) {
	got := RedactActivity(&Activity{Fingerprint: "fp-1", Votes: []Vote{{Message: "otp=123456", Signature: "3045"}}})
	if got.Votes[0].Message != Redacted || got.Votes[0].Signature != Redacted || got.Fingerprint != Redacted {
		t.Errorf("got %+v", got)
	}
}

// TestSecretFieldsAreDistinctNames guards the list: one entry per name,
// each a camelCase member name with the reference's definitions named.
func TestSecretFieldsAreDistinctNames(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range SecretFields() {
		k := secretFieldKey(f.Name)
		if seen[k] || f.Name == "" || strings.ContainsAny(f.Name, "_ .") || f.Where == "" {
			t.Errorf("%+v: repeated, not a member name, or without its reference", f)
		}
		seen[k] = true
		if !IsSecretField(f.Name) || !IsSecretField(snakeCase(f.Name)) {
			t.Errorf("%s: IsSecretField does not know it", f.Name)
		}
	}
	for _, name := range []string{"providerName", "fingerprint", "publicKey", "targetPublicKey", "signature", "userId"} {
		if IsSecretField(name) {
			t.Errorf("%s is not a secret", name)
		}
	}
}
