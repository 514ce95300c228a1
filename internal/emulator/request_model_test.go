package emulator

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// notModelled are the keywords the emulator never builds, although the
// catalogue's request table says a complete request carries them: it does
// not parse the other chains' transactions nor EIP-7702 authorizations, and
// has no wallets (its keys sign, so private_key is the target). A policy
// reading them errs in the emulator, never allows, and so the emulator
// decides such requests no more permissively than the service.
var notModelled = []string{"solana.tx", "tron.tx", "bitcoin.tx", "tempo.tx", "eth.eip_7702_authorization"}

// The emulator builds a request for every activity it runs by construction
// (policy_env.go): the params its type exposes, private_key for a signing
// one, eth.tx and eth.eip_712 only when the payload is Ethereum or EIP-712.
// So instead of refusing activities at run time for a request it cannot
// build, this drives every submit operation it supports, in each variant
// that changes what the request carries, through that construction, with
// parameters as the client sends them: every request must conform to the
// catalogue's request table and lack nothing but notModelled.
func TestEveryEmulatedRequestConformsToTheCatalogue(t *testing.T) {
	e := newTestEmulator(t)
	keyID, _ := newHotKey(t, e.client)
	type variant struct {
		label  string
		params json.RawMessage
	}
	marshal := func(label string, v any) variant {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return variant{label, raw}
	}
	variants := map[string][]variant{
		client.OpUpdateWebhookEndpoint.Name: {marshal("", client.UpdateWebhookEndpointParams{EndpointID: "we-1"})},
		client.OpDeleteWebhookEndpoint.Name: {marshal("", client.DeleteWebhookEndpointParams{EndpointID: "we-1"})},
	}
	for _, typ := range transactionTypes {
		unsigned := "deadbeef"
		if typ == txTypeEthereum {
			unsigned = eip1559To(t, "0x1111111111111111111111111111111111111111", 0)
		}
		variants[client.OpSignTransaction.Name] = append(variants[client.OpSignTransaction.Name],
			marshal(typ, client.SignTransactionParams{SignWith: keyID, UnsignedTransaction: unsigned, Type: typ}))
	}
	for _, enc := range payloadEncodings {
		payload := "deadbeef"
		if enc == encodingEIP712 {
			payload = permit2Single(t)
		}
		variants[client.OpSignRawPayload.Name] = append(variants[client.OpSignRawPayload.Name],
			marshal(enc, client.SignRawPayloadParams{SignWith: keyID, Payload: payload, Encoding: enc, HashFunction: hashNotApplicable}))
	}
	for _, name := range slices.Sorted(maps.Keys(submitOps)) {
		op := submitOps[name]
		if op.vote != "" {
			continue // a vote creates no activity of its own
		}
		params, ok := variants[name]
		if !ok {
			// An operation without variants must expose no params and
			// carry no keyword, or this test must learn its parameters.
			if m := policylang.LookupRequestModel(op.Type); len(m.Params) > 0 || len(m.Keywords) > 0 {
				t.Errorf("%s: %s carries %s; give the test its parameters", name, op.Type, m.Describe())
			}
			params = []variant{{"", json.RawMessage(`{}`)}}
		}
		for _, p := range params {
			rec := &activityRecord{Op: name, Params: p.params, Activity: client.Activity{Type: op.Type,
				Votes: []client.Vote{{UserID: "user-root", Selection: client.VoteApproved, PublicKey: e.key.PublicKeyHex()}}}}
			e.srv.mu.Lock()
			req := e.srv.request(rec)
			e.srv.mu.Unlock()
			if err := req.Conforms(); err != nil {
				t.Errorf("%s %s: %v", name, p.label, err)
			}
			for _, m := range req.Missing() {
				if !slices.Contains(notModelled, m) {
					t.Errorf("%s %s: the request lacks %s, which the catalogue says it carries", name, p.label, m)
				}
			}
		}
	}
}
