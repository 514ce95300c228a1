package emulator

import (
	"encoding/json"

	"github.com/custody-labs/terraform-provider-custody/internal/activityrequest"
	"github.com/custody-labs/terraform-provider-custody/internal/client"
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

// request is rec as the policies see it at the service's time now, with
// the approvals cast so far.
func (s *Server) request(rec *activityRecord) policyset.Request {
	var wire map[string]any
	_ = json.Unmarshal(rec.Params, &wire) // checked at submit
	params := activityrequest.Params(rec.Activity.Type, wire)
	req := policyset.Request{Type: rec.Activity.Type, Params: params, Now: s.now(), Credentials: []policyset.Credential{},
		RootQuorum: policyset.RootQuorum{Threshold: s.st.RootQuorum}}
	for _, u := range s.st.Users {
		if u.Root {
			req.RootQuorum.UserIDs = append(req.RootQuorum.UserIDs, u.UserID)
		}
	}
	s.addApprovers(&req, rec)
	if signWith, _ := wire["signWith"].(string); activityrequest.Signs(rec.Activity.Type) {
		k := s.signer(signWith)
		if k != nil {
			req.PrivateKey = &policyset.PrivateKey{ID: k.PrivateKeyID, Tags: k.Tags, Label: k.PrivateKeyName}
		}
		setPayloadKeywords(&req, rec, k)
	}
	return req
}

// payload decodes rec's payload once, and keeps it on the record so that
// each vote does not decode it again. It is not persisted: after a
// restart it is decoded again from the record's params, which hold
// everything it comes from.
func (rec *activityRecord) payload() *activityrequest.Payload {
	if rec.decoded == nil {
		d, _ := activityrequest.DecodePayload(rec.Activity.Type, rec.Params) // checked at submit
		rec.decoded = &d
	}
	return rec.decoded
}

// setPayloadKeywords sets eth.tx or eth.eip_712 from rec's payload; key is
// the signing key (nil when signWith names none), whose Ethereum address
// is eth.tx.from.
func setPayloadKeywords(req *policyset.Request, rec *activityRecord, key *privateKeyRecord) {
	from := ""
	if key != nil {
		from = ethereumAddressOf(key)
	}
	rec.payload().Set(req, from)
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
