package emulator

import (
	"encoding/json"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// What a policy sees of a request, built from the activity and the
// emulator's state. eth.tx (an Ethereum sign_transaction) and eth.eip_712
// (an EIP-712 sign_raw_payload) come from the payload the emulator decodes
// (internal/payload). Keywords for data the emulator does not
// model (solana.tx, tron.tx, bitcoin.tx, tempo.tx,
// eth.eip_7702_authorization, wallet, ...) are absent, so reading them is
// an evaluation error, as it is in the service for a request that does not
// carry them; for the other chains' transactions that is the emulator's
// limit, not the service's.

// exposedParams are the activity.params fields rec's type exposes, by the
// catalogue's request table (reference §8.5), each with the wire name of
// the parameter it comes from: the field in lower camel case (hash_function
// is hashFunction). Every other activity exposes none: reading one is an
// evaluation error.
func exposedParams(activityType string) map[string]string {
	out := map[string]string{}
	for _, field := range policylang.LookupRequestModel(activityType).Params {
		words := strings.Split(field, "_")
		for i := 1; i < len(words); i++ {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
		out[field] = strings.Join(words, "")
	}
	return out
}

// signingOps name the key they sign with in signWith; their requests carry
// the private_key keyword.
var signingOps = map[string]bool{"sign_raw_payload": true, "sign_transaction": true}

// request is rec as the policies see it at the service's time now, with
// the approvals cast so far.
func (s *Server) request(rec *activityRecord) policyset.Request {
	var wire map[string]any
	_ = json.Unmarshal(rec.Params, &wire) // checked at submit
	params := map[string]any{}
	for field, name := range exposedParams(rec.Activity.Type) {
		if v, ok := wire[name]; ok {
			params[field] = v
		}
	}
	req := policyset.Request{Type: rec.Activity.Type, Params: params, Now: s.now(), Credentials: []policyset.Credential{},
		RootQuorum: policyset.RootQuorum{Threshold: s.st.RootQuorum}}
	for _, u := range s.st.Users {
		if u.Root {
			req.RootQuorum.UserIDs = append(req.RootQuorum.UserIDs, u.UserID)
		}
	}
	s.addApprovers(&req, rec)
	if signWith, _ := wire["signWith"].(string); signingOps[rec.Op] {
		k := s.signer(signWith)
		if k != nil {
			req.PrivateKey = &policyset.PrivateKey{ID: k.PrivateKeyID, Tags: k.Tags, Label: k.PrivateKeyName}
		}
		setPayloadKeywords(&req, rec, k)
	}
	return req
}

// decodedPayload is what the emulator decoded of a signing activity's
// payload, kept on the record so that each vote does not decode it again.
// It is not persisted: after a restart it is decoded again from the
// record's params, which hold everything it comes from.
type decodedPayload struct {
	tx    *payload.EthTx  // sign_transaction, TRANSACTION_TYPE_ETHEREUM
	typed *payload.EIP712 // sign_raw_payload, PAYLOAD_ENCODING_EIP712
}

// payload decodes rec's payload once.
func (rec *activityRecord) payload() *decodedPayload {
	if rec.decoded != nil {
		return rec.decoded
	}
	rec.decoded = &decodedPayload{}
	switch rec.Op {
	case client.OpSignTransaction.Name:
		var p client.SignTransactionParams
		if json.Unmarshal(rec.Params, &p) == nil && p.Type == txTypeEthereum {
			rec.decoded.tx, _ = payload.DecodeEthTx(p.UnsignedTransaction) // checked at submit
		}
	case client.OpSignRawPayload.Name:
		var p client.SignRawPayloadParams
		if json.Unmarshal(rec.Params, &p) == nil && p.Encoding == encodingEIP712 {
			rec.decoded.typed, _ = payload.DecodeEIP712(p.Payload) // checked at submit
		}
	}
	return rec.decoded
}

// setPayloadKeywords sets eth.tx or eth.eip_712 from rec's payload; key is
// the signing key (nil when signWith names none), whose Ethereum address
// is eth.tx.from. The values are built within the catalogue's types (an
// integer beyond int's range is left out), so SetKeyword does not refuse
// them; if it did, the keyword would stay absent and a policy reading it
// would err, which never allows.
func setPayloadKeywords(req *policyset.Request, rec *activityRecord, key *privateKeyRecord) {
	d := rec.payload()
	if d.tx != nil {
		from := ""
		if key != nil {
			from = ethereumAddressOf(key)
		}
		_ = req.SetKeyword("eth.tx", d.tx.Keyword(from))
	}
	if d.typed != nil {
		_ = req.SetKeyword("eth.eip_712", d.typed.Keyword())
	}
}

// addApprovers adds rec's approvals to req: the approving users, in the
// order they voted, and the credentials they approved with.
func (s *Server) addApprovers(req *policyset.Request, rec *activityRecord) {
	for _, v := range rec.Activity.Votes {
		if v.Selection != client.VoteApproved {
			continue
		}
		u := s.st.userByID(v.UserID)
		if u == nil {
			continue // a user deleted since; the emulator deletes none
		}
		// The emulator's users have no alias: it reads as "".
		req.Approvers = append(req.Approvers, policyset.User{ID: u.UserID, Tags: u.Tags, Email: u.Email})
		cred := policyset.Credential{UserID: u.UserID, Type: client.CredentialTypeAPIKeyP256, PublicKey: v.PublicKey}
		for _, k := range u.APIKeys {
			if k.PublicKey == v.PublicKey {
				cred.ID = k.APIKeyID
			}
		}
		req.Credentials = append(req.Credentials, cred)
	}
}
