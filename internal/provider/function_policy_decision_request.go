package provider

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// How policy_decision reads its arguments into the engine's policies and
// request. The policies argument is lenient (every attribute but the five
// it reads is ignored, so resources and data sources pass as they are);
// the request is strict (a misspelt attribute is an error, since each one
// changes the decision).

// decisionPolicy is one policy read from the policies argument, with the
// name it goes by in the result.
type decisionPolicy struct {
	policy policyset.Policy
	named  bool // the policy has a name; else it goes by its position
	// readsTime is the field of the first expression that reads time.now,
	// or "" when none does
	readsTime policylang.Field
}

// readDecisionPolicies reads the policies argument: a list of objects, each with
// an effect and optional name, condition, consensus and time. Every
// expression is checked as `terraform plan` checks a custody_policy.
func readDecisionPolicies(arg argValue) ([]decisionPolicy, *function.FuncError) {
	elems, ferr := arg.elems()
	if ferr != nil {
		return nil, ferr
	}
	out := make([]decisionPolicy, 0, len(elems))
	for _, e := range elems {
		if e.isNull() {
			return nil, e.errorf("is null: each policy is an object with at least an effect")
		}
		if !e.known() {
			// A whole policy not known yet (a resource planned at
			// validate): the result is unknown, not an error.
			continue
		}
		// A resource's other attributes (id, notes, timeouts, ...) are
		// ignored: only these are read.
		attrs, ferr := e.rawAttrs()
		if ferr != nil {
			return nil, ferr
		}
		var p policyset.Policy
		for _, f := range []struct {
			name string
			into *string
		}{{"name", &p.Name}, {"condition", &p.Condition}, {"consensus", &p.Consensus}, {"time", &p.Time}} {
			if *f.into, ferr = e.rawMember(attrs, f.name).str(); ferr != nil {
				return nil, ferr
			}
		}
		effect := e.rawMember(attrs, "effect")
		if p.Effect, ferr = effect.required(); ferr != nil {
			return nil, ferr
		}
		if effect.known() && p.Effect != client.EffectAllow && p.Effect != client.EffectDeny {
			return nil, effect.errorf("must be %s or %s, not %q", client.EffectAllow, client.EffectDeny, p.Effect)
		}
		dp := decisionPolicy{policy: p, named: p.Name != ""}
		if !dp.named {
			dp.policy.Name = e.path()
		}
		if ferr := checkExpressions(e, &dp); ferr != nil {
			return nil, ferr
		}
		out = append(out, dp)
	}
	return out, nil
}

// checkExpressions refuses an expression the service would refuse, worded
// as the plan-time check of custody_policy words it, and notes which one
// reads time.now.
func checkExpressions(e argValue, dp *decisionPolicy) *function.FuncError {
	for _, x := range dp.expressions() {
		prog, d := policyset.Compile(x.field, x.src)
		if d == nil && dp.readsTime == "" && prog.Reads("time.now") {
			dp.readsTime = x.field
		}
		if d != nil {
			// The message comes last: Terraform ends the text with a period.
			_, carets, _ := strings.Cut(d.Format(x.src), "\n\n")
			return e.errorf("%s: invalid policy %s expression at line %d, column %d:\n\n%s\n\n%s", dp.describe(), x.field,
				d.Span.Start.Line, d.Span.Start.Col, carets, d.Message)
		}
	}
	return nil
}

type fieldExpression struct {
	field policylang.Field
	src   string
}

// expressions are the policy's non-empty expressions.
func (dp decisionPolicy) expressions() []fieldExpression {
	var out []fieldExpression
	for _, x := range []fieldExpression{{policylang.FieldCondition, dp.policy.Condition}, {policylang.FieldConsensus, dp.policy.Consensus},
		{policylang.FieldTime, dp.policy.Time}} {
		if x.src != "" {
			out = append(out, x)
		}
	}
	return out
}

// describe names the policy for a message.
func (dp decisionPolicy) describe() string {
	if dp.named {
		return fmt.Sprintf("policy %q", dp.policy.Name)
	}
	return "this policy"
}

// requestAttributes are the attributes of the request argument: its own,
// then the keyword attributes (eth, solana, wallet, ...).
var requestAttributes = append([]string{"type", "approvers", "credentials", "params", "private_key", "time", "root_quorum"},
	keywordAttributes...)

// readDecisionRequest reads the request argument.
func readDecisionRequest(arg argValue) (policyset.Request, *function.FuncError) {
	var req policyset.Request
	if arg.isNull() {
		return req, arg.errorf("is required")
	}
	attrs, ferr := arg.attrs(requestAttributes...)
	if ferr != nil {
		return req, ferr
	}
	typ := arg.member(attrs, "type")
	if req.Type, ferr = typ.required(); ferr != nil {
		return req, ferr
	}
	if typ.known() {
		if why := unknownActivityType(req.Type, client.OpSignRawPayload.Type); why != "" {
			return req, typ.errorf("%s", why)
		}
	}
	if req.Approvers, ferr = readApprovers(arg.member(attrs, "approvers")); ferr != nil {
		return req, ferr
	}
	if req.Credentials, ferr = readCredentials(arg.member(attrs, "credentials"), req.Approvers); ferr != nil {
		return req, ferr
	}
	if req.Params, ferr = readParams(arg.member(attrs, "params")); ferr != nil {
		return req, ferr
	}
	if req.PrivateKey, ferr = readPrivateKey(arg.member(attrs, "private_key")); ferr != nil {
		return req, ferr
	}
	if req.Now, ferr = readTime(arg.member(attrs, "time")); ferr != nil {
		return req, ferr
	}
	if req.RootQuorum, ferr = readRootQuorum(arg.member(attrs, "root_quorum")); ferr != nil {
		return req, ferr
	}
	if ferr = readKeywordAttributes(attrs, &req); ferr != nil {
		return req, ferr
	}
	if typ.known() {
		ferr = conformsToCatalogue(arg, req)
	}
	return req, ferr
}

// conformsToCatalogue refuses a request its type never makes, by the
// catalogue's request table (policyset.Request.Conforms), naming the
// keyword's or param's path: eth.tx on a Solana signing request, wallet
// beside private_key, private_key on a wallet export.
func conformsToCatalogue(arg argValue, req policyset.Request) *function.FuncError {
	var me *policylang.RequestModelError
	if err := req.Conforms(); errors.As(err, &me) {
		at := arg.path() + "." + me.Keyword
		if me.Param != "" {
			at = arg.path() + ".params." + me.Param
		}
		return function.NewArgumentFuncError(arg.arg.position, at+": "+me.Message)
	}
	return nil
}

// readApprovers reads the approvers, the requester first: at least one.
func readApprovers(v argValue) ([]policyset.User, *function.FuncError) {
	if v.isNull() {
		return nil, v.errorf("is required: the users who approved so far, the requester first")
	}
	elems, ferr := v.elems()
	if ferr != nil {
		return nil, ferr
	}
	if v.known() && len(elems) == 0 {
		return nil, v.errorf("must hold at least the requester")
	}
	out := make([]policyset.User, len(elems))
	for i, e := range elems {
		attrs, ferr := e.attrs("id", "tags", "email", "alias")
		if ferr != nil {
			return nil, ferr
		}
		u := &out[i]
		if u.ID, ferr = e.member(attrs, "id").required(); ferr != nil {
			return nil, ferr
		}
		if u.Tags, ferr = e.member(attrs, "tags").strings(); ferr != nil {
			return nil, ferr
		}
		if ferr := e.optionalStrings(attrs, stringField{"email", &u.Email}, stringField{"alias", &u.Alias}); ferr != nil {
			return nil, ferr
		}
	}
	return out, nil
}

// readCredentials reads the credentials the approvers approved with, each
// {id, user_id, type, credential_id, public_key}: user_id (an approver's
// id, since a credential is one used for an approval) and type (a
// documented Credential.type) are required, as every credential of the
// service has them; the others read as "" when left out. Null leaves the
// keyword out, so that reading it is an evaluation error.
func readCredentials(v argValue, approvers []policyset.User) ([]policyset.Credential, *function.FuncError) {
	if v.absent() {
		return nil, nil
	}
	elems, ferr := v.elems()
	if ferr != nil {
		return nil, ferr
	}
	types := policylang.DocumentedValues("Credential.type")
	out := make([]policyset.Credential, len(elems))
	for i, e := range elems {
		attrs, ferr := e.attrs("id", "user_id", "type", "credential_id", "public_key")
		if ferr != nil {
			return nil, ferr
		}
		c := &out[i]
		userID := e.member(attrs, "user_id")
		if c.UserID, ferr = userID.required(); ferr != nil {
			return nil, ferr
		}
		if userID.known() && !v.arg.unknown && !slices.ContainsFunc(approvers, func(u policyset.User) bool { return u.ID == c.UserID }) {
			return nil, userID.errorf("%q is none of the approvers: a request's credentials are those its approvers approved with", c.UserID)
		}
		typ := e.member(attrs, "type")
		if c.Type, ferr = typ.required(); ferr != nil {
			return nil, ferr
		}
		if typ.known() && !slices.Contains(types, c.Type) {
			if closest := policylang.Closest(c.Type, types); closest != "" {
				return nil, typ.errorf("%q is not a credential type of the service; the closest is %s", c.Type, closest)
			}
			return nil, typ.errorf("%q is not a credential type of the service (%s)", c.Type, strings.Join(types, ", "))
		}
		if ferr := e.optionalStrings(attrs, stringField{"id", &c.ID}, stringField{"credential_id", &c.CredentialID},
			stringField{"public_key", &c.PublicKey}); ferr != nil {
			return nil, ferr
		}
	}
	return out, nil
}

// readParams reads activity.params, named as the language names them.
// A null param is left out: reading it is an evaluation error, as for a
// param the request lacks.
func readParams(v argValue) (map[string]any, *function.FuncError) {
	return v.languageObject(true)
}

// readPrivateKey reads the key a signing request signs with.
func readPrivateKey(v argValue) (*policyset.PrivateKey, *function.FuncError) {
	if v.absent() {
		return nil, nil
	}
	attrs, ferr := v.attrs("id", "tags", "label", "imported", "exported")
	if ferr != nil {
		return nil, ferr
	}
	k := &policyset.PrivateKey{}
	if ferr := v.optionalStrings(attrs, stringField{"id", &k.ID}, stringField{"label", &k.Label}); ferr != nil {
		return nil, ferr
	}
	if k.Tags, ferr = v.member(attrs, "tags").strings(); ferr != nil {
		return nil, ferr
	}
	for _, flag := range []struct {
		name string
		into *bool
	}{{"exported", &k.Exported}, {"imported", &k.Imported}} {
		name, into := flag.name, flag.into
		b := v.member(attrs, name)
		if b.absent() {
			continue
		}
		x, ferr := b.languageValue()
		if ferr != nil {
			return nil, ferr
		}
		flag, ok := x.(bool)
		if !ok {
			return nil, b.errorf("must be a bool, not %s", b.kind())
		}
		*into = flag
	}
	return k, nil
}

// readTime reads the request's time, RFC 3339.
func readTime(v argValue) (time.Time, *function.FuncError) {
	s, ferr := v.str()
	if ferr != nil || s == "" {
		return time.Time{}, ferr
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, v.errorf("%q is not an RFC 3339 time such as \"2026-01-02T15:04:05Z\" (plantimestamp() gives one)", s)
	}
	return t, nil
}

// readRootQuorum reads the root quorum: its users and threshold.
func readRootQuorum(v argValue) (policyset.RootQuorum, *function.FuncError) {
	var q policyset.RootQuorum
	attrs, ferr := v.attrs("user_ids", "threshold")
	if ferr != nil || attrs == nil {
		return q, ferr
	}
	if q.UserIDs, ferr = v.member(attrs, "user_ids").strings(); ferr != nil {
		return q, ferr
	}
	th := v.member(attrs, "threshold")
	if th.absent() {
		if th.known() {
			return q, th.errorf("is required: how many root users must approve")
		}
		return q, nil
	}
	x, ferr := th.languageValue()
	if ferr != nil {
		return q, ferr
	}
	n, ok := x.(*big.Int)
	if !ok || !n.IsInt64() || n.Int64() < 1 || n.Int64() > int64(len(q.UserIDs)) {
		return q, th.errorf("must be a whole number from 1 to the number of user_ids (%d)", len(q.UserIDs))
	}
	q.Threshold = int(n.Int64())
	return q, nil
}
