package policyset

import (
	"regexp"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// Request is one activity as the policies see it.
type Request struct {
	// Type is the activity type, an ACTIVITY_TYPE_*.
	Type string
	// Approvers are the users who approved so far, the requester first.
	Approvers []User
	// Credentials are the credentials they approved with. Nil leaves the
	// credentials keyword out of the request: reading it is then an
	// evaluation error.
	Credentials []Credential
	// Params are the activity.params fields the activity exposes, named
	// as the language names them (hash_function, encoding, ...).
	Params map[string]any
	// PrivateKey is the key a signing activity signs with; nil for none,
	// which leaves the private_key keyword out.
	PrivateKey *PrivateKey
	// Now is the service's time for the request; the zero time leaves
	// time.now out, so a policy that reads it gets an evaluation error.
	Now time.Time
	// RootQuorum is the organization's root quorum; the zero value is
	// none, which never allows.
	RootQuorum RootQuorum

	// keywords are the other condition keywords the request carries
	// (eth.tx, wallet, secret, ...), conformed to the catalogue by
	// SetKeyword; a keyword not set is absent.
	keywords map[string]any
}

// SetKeyword makes the request carry a condition keyword beyond activity
// and private_key (eth.tx, eth.eip_712, solana.tx, wallet, wallets,
// secret, ...), named as the language names it. v is plain Go data that
// policylang.Conform checks against the keyword's catalogued type: a
// field of the wrong type, a field the catalogue does not have, or an
// integer outside its type's range is a *policylang.ConformError, and the
// request is left as it was.
func (r *Request) SetKeyword(keyword string, v any) error {
	if keyword == "private_key" {
		return &policylang.ConformError{Message: "private_key is the request's PrivateKey, not a keyword to set"}
	}
	x, err := policylang.ConformKeyword(keyword, v)
	if err != nil {
		return err
	}
	if r.keywords == nil {
		r.keywords = map[string]any{}
	}
	r.keywords[keyword] = x
	return nil
}

// Keyword is the value of a keyword set by SetKeyword, as Eval reads it.
func (r Request) Keyword(keyword string) (any, bool) {
	v, ok := r.keywords[keyword]
	return v, ok
}

// User is an approver as a consensus expression sees it.
type User struct {
	ID, Email, Alias string
	Tags             []string
}

// Credential is a credential an approver approved with.
type Credential struct {
	ID, UserID, Type, CredentialID, PublicKey string
}

// PrivateKey is the key a signing activity signs with.
type PrivateKey struct {
	ID, Label          string
	Tags               []string
	Imported, Exported bool
}

// RootQuorum is who the root users are and how many of them must approve.
type RootQuorum struct {
	UserIDs   []string
	Threshold int
}

// rootApprovals counts the approvers who are root users.
func (r Request) rootApprovals() int {
	n := 0
	for _, a := range r.Approvers {
		for _, id := range r.RootQuorum.UserIDs {
			if a.ID == id {
				n++
				break
			}
		}
	}
	return n
}

// quorumReached tells whether the root users among the approvers are
// enough to allow the activity on their own.
func (r Request) quorumReached() bool {
	return r.RootQuorum.Threshold > 0 && r.rootApprovals() >= r.RootQuorum.Threshold
}

// env is the request as the language's keywords: what an expression reads.
func (r Request) env() policylang.Env {
	env := policylang.Env{"activity": r.activityValue(), "approvers": r.approversValue()}
	if r.Credentials != nil {
		env["credentials"] = r.credentialsValue()
	}
	if r.PrivateKey != nil {
		env["private_key"] = r.privateKeyValue()
	}
	if !r.Now.IsZero() {
		env["time.now"] = r.Now.UTC()
	}
	for k, v := range r.keywords {
		env[k] = v
	}
	return env
}

// root is the value of one of env's roots, built alone; ok is false
// where the request has none.
func (r Request) root(name string) (any, bool) {
	switch name {
	case "activity":
		return r.activityValue(), true
	case "approvers":
		return r.approversValue(), true
	case "credentials":
		return r.credentialsValue(), r.Credentials != nil
	case "private_key":
		if r.PrivateKey == nil {
			return nil, false
		}
		return r.privateKeyValue(), true
	case "time.now":
		return r.Now.UTC(), !r.Now.IsZero()
	}
	v, ok := r.keywords[name]
	return v, ok
}

func (r Request) activityValue() map[string]any {
	info := DescribeActivity(r.Type)
	params := r.Params
	if params == nil {
		params = map[string]any{}
	}
	activity := map[string]any{"type": r.Type, "params": params}
	for field, v := range map[string]string{"kind": info.Kind, "resource": info.Resource, "action": info.Action} {
		if v != "" {
			activity[field] = v
		}
	}
	return activity
}

func (r Request) approversValue() []any {
	users := make([]any, len(r.Approvers))
	for i, u := range r.Approvers {
		users[i] = map[string]any{"id": u.ID, "tags": stringList(u.Tags), "email": u.Email, "alias": u.Alias}
	}
	return users
}

func (r Request) credentialsValue() []any {
	creds := make([]any, len(r.Credentials))
	for i, c := range r.Credentials {
		creds[i] = map[string]any{"id": c.ID, "user_id": c.UserID, "type": c.Type, "credential_id": c.CredentialID,
			"public_key": c.PublicKey}
	}
	return creds
}

func (r Request) privateKeyValue() map[string]any {
	k := r.PrivateKey
	return map[string]any{"id": k.ID, "tags": stringList(k.Tags), "imported": k.Imported, "exported": k.Exported, "label": k.Label}
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var versionSuffix = regexp.MustCompile(`_V[0-9]+$`)

// DescribeActivity is what the documentation says of typ. Where it says
// nothing (ACTIVITY_TYPE_SET_IP_ALLOWLIST, say), the kind, resource and
// action are derived from the name, as the documented ones are formed:
// ACTIVITY_TYPE_<VERB>_<OBJECT>[_V<n>], kind <VERB>_<OBJECT>. The resource
// is then the object in the singular (a rename, ..._NAME, acts on the
// object named), and SET reads as UPDATE and REMOVE as DELETE. Activities
// governed by the root quorum only have no kind.
func DescribeActivity(typ string) policylang.ActivityInfo {
	return described.Get(typ, func() policylang.ActivityInfo { return describeActivity(typ) })
}

// described keeps DescribeActivity, which the access review asks for
// every type of every policy of every change.
var described = NewMemo[string, policylang.ActivityInfo](1 << 12)

func describeActivity(typ string) policylang.ActivityInfo {
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

// Value is r's value at a scalar path as a policy reads it
// ("activity.type", "eth.tx.to", "private_key.id"); ok is false where r
// has none (the policy's read errs).
func (r Request) Value(path string) (any, bool) {
	// The root is the longest prefix the request has: keywords such as
	// eth.tx and time.now have a dot of their own.
	for i := len(path); i > 0; i = strings.LastIndexByte(path[:i], '.') {
		v, ok := r.root(path[:i])
		if !ok {
			continue
		}
		for _, field := range strings.Split(strings.TrimPrefix(path[i:], "."), ".") {
			if field == "" {
				break
			}
			m, isMap := v.(map[string]any)
			if !isMap {
				return nil, false
			}
			if v, ok = m[field]; !ok {
				return nil, false
			}
		}
		return v, true
	}
	return nil, false
}
