// Package replay rebuilds an organization's recent activities as requests
// of the review's request model and decides each against the policies
// before and after a change: what a change would have done to real
// traffic. What cannot be rebuilt is counted by its reason, never
// guessed.
package replay

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/activityrequest"
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Key is one of the organization's private keys as list_private_keys
// gives it today: its tags are today's, not the activity's.
type Key struct {
	ID, Name  string
	Tags      []string
	Addresses []string // every format's address
	// Ethereum is its Ethereum address ("" when it has none): eth.tx.from.
	Ethereum string
}

// Org is what rebuilding reads beside the activities: the keys, and the
// root users and quorum (get_organization_configs).
type Org struct {
	Keys        []Key
	RootUserIDs []string
	RootQuorum  int
}

// Why an activity is not rebuilt.
const (
	SkipRoot    = "requested by a root user (the root quorum decides those, not policies)"
	SkipWallet  = "a wallet's (no query lists wallets)"
	SkipKey     = "signed with a wallet account or a key not listed today"
	SkipIntent  = "an intent without parameters"
	SkipPayload = "a payload that does not decode"
	SkipTime    = "a creation time that does not read"
	SkipVotes   = "no approving vote"
)

// Request is one activity rebuilt as a request of the review's model.
type Request struct {
	ActivityID, Type string
	Req              policyset.Request
	// KeyID is the signing key's id, "" for an activity that signs
	// nothing: rows say what moved activities have in common.
	KeyID string
	// TodaysTags: the request carries a key whose tags are today's.
	TodaysTags bool
	// UnknownCredential: an approving vote's credential is none of its
	// user's listed API keys or authenticators, so its type is unknown.
	UnknownCredential bool
}

// keys indexes the organization's keys by id and by address (Ethereum
// and other hex addresses case-insensitively, as signWith names them).
type keys map[string]*Key

func (o *Org) index() keys {
	out := keys{}
	for i := range o.Keys {
		k := &o.Keys[i]
		out[k.ID] = k
		for _, a := range k.Addresses {
			out[strings.ToLower(a)] = k
		}
	}
	return out
}

// Rebuild rebuilds a, or says why it cannot: its type and params from
// its intent, its approvers from its approving votes (the requester first)
// with the user tags each vote recorded, its time from createdAt, its key
// and the key's tags from today's list, eth.tx and eth.eip_712 from its
// payload, decoded as the emulator decodes a submitted one.
func (o *Org) Rebuild(a *client.Activity) (Request, string) {
	return o.rebuild(a, o.index())
}

func (o *Org) rebuild(a *client.Activity, ks keys) (Request, string) {
	out := Request{ActivityID: a.ID, Type: a.Type}
	var approving []client.Vote
	for _, v := range a.Votes {
		if v.Selection == client.VoteApproved {
			approving = append(approving, v)
		}
	}
	if len(approving) == 0 {
		return out, SkipVotes
	}
	if slices.Contains(o.RootUserIDs, approving[0].UserID) {
		return out, SkipRoot
	}
	if r := policyset.DescribeActivity(a.Type).Resource; r == "WALLET" || r == "WALLET_ACCOUNT" {
		return out, SkipWallet
	}
	created, err := a.CreatedAt.Time()
	if err != nil {
		return out, SkipTime
	}
	params := intentParams(a)
	if params == nil {
		return out, SkipIntent
	}
	var wire map[string]any
	if err := json.Unmarshal(params, &wire); err != nil {
		return out, SkipIntent
	}
	req := policyset.Request{Type: a.Type, Params: activityrequest.Params(a.Type, wire), Now: created,
		Credentials: []policyset.Credential{}, RootQuorum: policyset.RootQuorum{Threshold: o.RootQuorum, UserIDs: o.RootUserIDs}}
	for _, v := range approving {
		req.Approvers = append(req.Approvers, policyset.User{ID: v.UserID, Tags: v.User.UserTags, Email: v.User.UserEmail})
		cred, known := credentialOf(v)
		out.UnknownCredential = out.UnknownCredential || !known
		req.Credentials = append(req.Credentials, cred)
	}
	if activityrequest.Signs(a.Type) {
		signWith, _ := wire["signWith"].(string)
		k := ks[signWith]
		if k == nil {
			k = ks[strings.ToLower(signWith)]
		}
		if k == nil {
			return out, SkipKey
		}
		req.PrivateKey = &policyset.PrivateKey{ID: k.ID, Label: k.Name, Tags: k.Tags}
		out.KeyID, out.TodaysTags = k.ID, true
		p, err := activityrequest.DecodePayload(a.Type, params)
		if err != nil {
			return out, SkipPayload
		}
		p.Set(&req, k.Ethereum)
	}
	out.Req = req
	return out, ""
}

// intentParams are the parameters a's intent echoes: its one intent
// object (the intent key is the type's), nil where there is none.
func intentParams(a *client.Activity) json.RawMessage {
	if len(a.Intent) != 1 {
		return nil
	}
	for _, v := range a.Intent {
		return v
	}
	return nil
}

// credentialOf is the credential v approved with: the API key or
// authenticator of v's user whose public key signed it; known is false
// where none of them did.
func credentialOf(v client.Vote) (policyset.Credential, bool) {
	c := policyset.Credential{UserID: v.UserID, PublicKey: v.PublicKey}
	for _, k := range v.User.APIKeys {
		if k.Credential.PublicKey == v.PublicKey {
			c.ID, c.Type = k.APIKeyID, k.Credential.Type
			return c, true
		}
	}
	for _, au := range v.User.Authenticators {
		if au.Credential.PublicKey == v.PublicKey {
			c.ID, c.Type, c.CredentialID = au.AuthenticatorID, au.Credential.Type, au.CredentialID
			return c, true
		}
	}
	return c, false
}
