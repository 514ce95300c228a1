package emulator

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// What a policy sees of a request, built from the activity and the
// emulator's state. Keywords for data the emulator does not model (eth.tx,
// solana.tx, wallet, ...) are absent, so reading them is an evaluation
// error, as it is in the service for a request that does not carry them.

// exposedParams are the activity.params fields each operation exposes
// (reference §8.5), by the wire name of the parameter they come from.
// Every other activity exposes none: reading one is an evaluation error.
var exposedParams = map[string]map[string]string{
	"sign_raw_payload":        {"hash_function": "hashFunction", "encoding": "encoding"},
	"sign_transaction":        {"type": "type"},
	"update_webhook_endpoint": {"endpoint_id": "endpointId"},
	"delete_webhook_endpoint": {"endpoint_id": "endpointId"},
}

// signingOps name the key they sign with in signWith; their requests carry
// the private_key keyword.
var signingOps = map[string]bool{"sign_raw_payload": true, "sign_transaction": true}

// requestEnv is the condition's view of rec at the service's time now.
func (s *Server) requestEnv(rec *activityRecord) policylang.Env {
	var wire map[string]any
	_ = json.Unmarshal(rec.Params, &wire) // checked at submit
	params := map[string]any{}
	for field, name := range exposedParams[rec.Op] {
		if v, ok := wire[name]; ok {
			params[field] = v
		}
	}
	activity := map[string]any{"type": rec.Activity.Type, "params": params}
	info := describeActivity(rec.Activity.Type)
	for field, v := range map[string]string{"kind": info.Kind, "resource": info.Resource, "action": info.Action} {
		if v != "" {
			activity[field] = v
		}
	}
	env := policylang.Env{"activity": activity, "time.now": s.now().UTC()}
	if signWith, _ := wire["signWith"].(string); signingOps[rec.Op] {
		if k := s.signer(signWith); k != nil {
			env["private_key"] = map[string]any{"id": k.PrivateKeyID, "tags": stringList(k.Tags), "imported": false,
				"exported": false, "label": k.PrivateKeyName}
		}
	}
	return env
}

// approvers is the consensus view of rec's approvals: the approving users
// and the credentials they approved with. rootApprovals counts the root
// users among them.
func (s *Server) approvers(rec *activityRecord) (env policylang.Env, rootApprovals int) {
	users, creds := []any{}, []any{}
	for _, v := range rec.Activity.Votes {
		if v.Selection != client.VoteApproved {
			continue
		}
		u := s.st.userByID(v.UserID)
		if u == nil {
			continue // a user deleted since; the emulator deletes none
		}
		if u.Root {
			rootApprovals++
		}
		// The emulator's users have no alias: it reads as "".
		users = append(users, map[string]any{"id": u.UserID, "tags": stringList(u.Tags), "email": u.Email, "alias": ""})
		cred := map[string]any{"id": "", "user_id": u.UserID, "type": "CREDENTIAL_TYPE_API_KEY_P256", "credential_id": "", "public_key": v.PublicKey}
		for _, k := range u.APIKeys {
			if k.PublicKey == v.PublicKey {
				cred["id"] = k.APIKeyID
			}
		}
		creds = append(creds, cred)
	}
	return policylang.Env{"approvers": users, "credentials": creds}, rootApprovals
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var versionSuffix = regexp.MustCompile(`_V[0-9]+$`)

// describeActivity is what the documentation says of typ. Where it says
// nothing (ACTIVITY_TYPE_SET_IP_ALLOWLIST, say), the emulator derives the
// kind, resource and action from the name, as the documented ones are
// formed: ACTIVITY_TYPE_<VERB>_<OBJECT>[_V<n>], kind <VERB>_<OBJECT>. The
// resource is then the object in the singular (a rename, ..._NAME, acts on
// the object named), and SET reads as UPDATE and REMOVE as DELETE.
// Activities governed by the root quorum only have no kind.
func describeActivity(typ string) policylang.Activity {
	info, _ := policylang.LookupActivity(typ)
	name := versionSuffix.ReplaceAllString(strings.TrimPrefix(typ, client.ActivityTypePrefix), "")
	if info.Kind == "" && !info.RootQuorumOnly {
		info.Kind = name
	}
	if info.Resource != "" {
		return info
	}
	verb, object, _ := strings.Cut(name, "_")
	switch {
	case strings.HasSuffix(object, "_NAME"):
		object = strings.TrimSuffix(object, "_NAME")
	case strings.HasSuffix(object, "IES"):
		object = strings.TrimSuffix(object, "IES") + "Y"
	case strings.HasSuffix(object, "S") && !strings.HasSuffix(object, "SS"):
		object = strings.TrimSuffix(object, "S")
	}
	info.Resource = object
	info.Action = map[string]string{"SET": "UPDATE", "REMOVE": "DELETE"}[verb]
	if info.Action == "" {
		info.Action = verb
	}
	return info
}
