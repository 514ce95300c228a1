package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// steppedClock is a clock the test moves, so that createdAt and updatedAt
// differ predictably. It stays within the liveness window of real time.
type steppedClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSteppedClock() *steppedClock { return &steppedClock{t: time.Now()} }

func (c *steppedClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *steppedClock) step() { c.mu.Lock(); c.t = c.t.Add(time.Second); c.mu.Unlock() }

func withClock(c *steppedClock) func(*Options) { return func(o *Options) { o.Now = c.now } }

func strRef(v string) *string { return &v }

func createPolicies(t *testing.T, c *client.Client, ps ...client.PolicyParams) *client.Submitted[client.CreatePoliciesResult] {
	t.Helper()
	got, err := c.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: ps})
	if err != nil {
		t.Fatalf("create_policies: %v", err)
	}
	return got
}

func getPolicy(t *testing.T, c *client.Client, id string) client.Policy {
	t.Helper()
	got, err := c.GetPolicy(t.Context(), client.GetPolicyRequest{PolicyID: id})
	if err != nil {
		t.Fatalf("get_policy %s: %v", id, err)
	}
	return got.Policy
}

func TestPolicyRoundTrip(t *testing.T) {
	clock := newSteppedClock()
	e := newTestEmulator(t, withClock(clock))
	params := client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "allow signing", Effect: client.EffectAllow, Condition: "activity.action == 'SIGN'",
			Consensus: "approvers.any(u, u.id == 'user-root')", Notes: "first", Time: "true"},
		{PolicyName: "deny all", Effect: client.EffectDeny, Notes: ""}, // notes is required but may be empty
	}}
	created, err := e.client.CreatePolicies(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := json.Marshal(params)
	if got := string(created.Activity.Intent["createPoliciesIntent"]); got != string(sent) {
		t.Fatalf("intent %s does not echo the parameters %s", got, sent)
	}
	ids := created.Result.PolicyIDs
	if len(ids) != 2 {
		t.Fatalf("policyIds = %v", ids)
	}
	for i, id := range ids {
		p, want := getPolicy(t, e.client, id), params.Policies[i]
		if p.PolicyID != id || p.PolicyName != want.PolicyName || p.Effect != want.Effect || p.Condition != want.Condition ||
			p.Consensus != want.Consensus || p.Notes != want.Notes || p.Time != want.Time || p.CreatedAt != p.UpdatedAt || p.CreatedAt.Seconds == "" {
			t.Fatalf("policy %d = %+v, want %+v (policyIds in request order)", i, p, want)
		}
	}

	clock.step()
	later := createPolicies(t, e.client, client.PolicyParams{PolicyName: "allow signing", Effect: client.EffectAllow}).Result.PolicyIDs[0]
	list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range list.Policies {
		order = append(order, p.PolicyID)
	}
	first, second := min(ids[0], ids[1]), max(ids[0], ids[1]) // same createdAt: by id
	if strings.Join(order, ",") != strings.Join([]string{first, second, later}, ",") {
		t.Fatalf("list order %v, want createdAt then id: %v %v %v (names need not be unique)", order, first, second, later)
	}

	clock.step()
	upd := client.UpdatePolicyParams{PolicyID: ids[0], PolicyName: strRef("renamed"), PolicyEffect: strRef(client.EffectDeny),
		PolicyCondition: strRef("activity.resource == 'POLICY'"), PolicyConsensus: strRef("approvers.count() >= 1"), PolicyNotes: strRef("second"), Time: strRef("false")}
	res, err := e.client.UpdatePolicy(t.Context(), upd)
	if err != nil || res.Result.PolicyID != ids[0] {
		t.Fatalf("update_policy: %+v %v", res, err)
	}
	p := getPolicy(t, e.client, ids[0])
	if p.PolicyName != "renamed" || p.Effect != client.EffectDeny || p.Condition != *upd.PolicyCondition || p.Consensus != *upd.PolicyConsensus ||
		p.Notes != "second" || p.Time != "false" || policyStampTime(p.UpdatedAt).Sub(policyStampTime(p.CreatedAt)) != 2*time.Second {
		t.Fatalf("after update: %+v", p)
	}

	del, err := e.client.DeletePolicy(t.Context(), client.DeletePolicyParams{PolicyID: ids[0]})
	if err != nil || del.Result.PolicyID != ids[0] {
		t.Fatalf("delete_policy: %+v %v", del, err)
	}
	if _, err := e.client.GetPolicy(t.Context(), client.GetPolicyRequest{PolicyID: ids[0]}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if list, _ := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{}); len(list.Policies) != 2 {
		t.Fatalf("list after delete: %+v", list)
	}
}

// A field left out of update_policy keeps its value; a present "" clears.
func TestUpdatePolicyChangesOnlyFieldsSent(t *testing.T) {
	e := newTestEmulator(t)
	id := createPolicies(t, e.client, client.PolicyParams{PolicyName: "p", Effect: client.EffectAllow, Condition: "true",
		Consensus: "true", Notes: "n", Time: "true"}).Result.PolicyIDs[0]
	if _, err := e.client.UpdatePolicy(t.Context(), client.UpdatePolicyParams{PolicyID: id, PolicyCondition: strRef(""), PolicyNotes: strRef("")}); err != nil {
		t.Fatal(err)
	}
	p := getPolicy(t, e.client, id)
	if p.Condition != "" || p.Notes != "" || p.PolicyName != "p" || p.Effect != client.EffectAllow || p.Consensus != "true" || p.Time != "true" {
		t.Fatalf("%+v", p)
	}
	if _, err := e.client.UpdatePolicy(t.Context(), client.UpdatePolicyParams{PolicyID: id, PolicyConsensus: strRef(""), Time: strRef("")}); err != nil {
		t.Fatal(err)
	}
	if p := getPolicy(t, e.client, id); p.Consensus != "" || p.Time != "" || p.PolicyName != "p" {
		t.Fatalf("%+v", p)
	}
}

// The emulator refuses what the service's language refuses (CEL's syntax
// included), at the position of the mistake, and accepts what the
// documentation shows as valid, CEL refuses included.
func TestPolicyExpressionErrorsFailTheActivity(t *testing.T) {
	e := newTestEmulator(t)
	ok := client.PolicyParams{PolicyName: "ok", Effect: client.EffectAllow, Notes: "n"}
	bad := func(f func(*client.PolicyParams)) client.PolicyParams { p := ok; f(&p); return p }
	for _, tc := range []struct {
		name string
		ps   []client.PolicyParams
		want string
	}{
		{"condition", []client.PolicyParams{ok, bad(func(p *client.PolicyParams) { p.Condition = "activity.type == " })},
			"policies[1].condition is not a valid condition expression: line 1, column 18: expected a value"},
		{"consensus on line 2", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Consensus = "true &&\n  (" })},
			"policies[0].consensus is not a valid consensus expression: line 2, column 4: expected a value"},
		{"time", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Time = "a b" })},
			"policies[0].time is not a valid time expression: line 1, column 3: expected an operator"},
		{"double quotes", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Condition = `activity.type == "x"` })},
			"line 1, column 18: double-quoted strings are not supported"},
		{"size()", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Consensus = "approvers.size() >= 2" })},
			"line 1, column 11: size() is not a function of the policy language"},
		{"exists()", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Consensus = "approvers.exists(u, true)" })},
			"line 1, column 11: exists() is not a function"},
		{"arithmetic", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Condition = "eth.tx.value > 1 + 1" })},
			"line 1, column 18: arithmetic"},
		{"?:", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Condition = "true ? true : false" })},
			"line 1, column 6: the conditional operator"},
		{"unknown keyword", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Condition = "activty.type == 'x'" })},
			"line 1, column 1: unknown name activty"},
		{"keyword of another field", []client.PolicyParams{bad(func(p *client.PolicyParams) { p.Consensus = "activity.type == 'x'" })},
			"activity is a keyword of the condition field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: tc.ps})
			wantFailedActivity(t, err, client.CodeInvalidArgument, tc.want)
		})
	}
	// Nothing of a failed create_policies is stored, not even its valid policies.
	if list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{}); err != nil || len(list.Policies) != 0 {
		t.Fatalf("%+v %v", list, err)
	}

	id := createPolicies(t, e.client, client.PolicyParams{PolicyName: "p", Effect: client.EffectAllow, Notes: "n", Condition: "true"}).Result.PolicyIDs[0]
	_, err := e.client.UpdatePolicy(t.Context(), client.UpdatePolicyParams{PolicyID: id, PolicyNotes: strRef("changed"), PolicyCondition: strRef("1 +* 2")})
	wantFailedActivity(t, err, client.CodeInvalidArgument, "policyCondition is not a valid condition expression: line 1, column 3: arithmetic")
	if p := getPolicy(t, e.client, id); p.Notes != "n" || p.Condition != "true" {
		t.Fatalf("a failed update changed the policy: %+v", p)
	}

	// What the service accepts and CEL does not: slices, 128-bit integers,
	// and warnings (an unknown field, an undocumented value) do not refuse.
	created := createPolicies(t, e.client,
		client.PolicyParams{PolicyName: "slice", Effect: client.EffectDeny, Notes: "", Condition: "eth.tx.data[0..10] == '0xa9059cbb'"},
		client.PolicyParams{PolicyName: "i128", Effect: client.EffectDeny, Notes: "", Condition: "eth.tx.value > 170141183460469231731687303715884105727"},
		client.PolicyParams{PolicyName: "warned", Effect: client.EffectDeny, Notes: "", Condition: "activity.action == 'SIGNING' || eth.tx.gasPrice > 0"})
	if n := len(created.Result.PolicyIDs); n != 3 {
		t.Fatalf("created %d policies", n)
	}
}

func wantFailedActivity(t *testing.T, err error, code int, want string) {
	t.Helper()
	var ae *client.ActivityError
	if !errors.As(err, &ae) || ae.Status != client.StatusFailed || ae.Failure == nil {
		t.Fatalf("err = %v, want a FAILED activity", err)
	}
	if ae.Failure.Code != code || !strings.Contains(ae.Failure.Message, want) {
		t.Fatalf("failure = %+v, want code %d and a message containing %q", ae.Failure, code, want)
	}
}

func TestPolicyUnknownIDs(t *testing.T) {
	e := newTestEmulator(t)
	const id = "00000000-0000-4000-8000-000000000000"
	_, err := e.client.GetPolicy(t.Context(), client.GetPolicyRequest{PolicyID: id})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusNotFound || !strings.Contains(apiErr.Message, id) {
		t.Fatalf("get_policy: %v", err)
	}
	_, err = e.client.UpdatePolicy(t.Context(), client.UpdatePolicyParams{PolicyID: id, PolicyNotes: strRef("x")})
	wantFailedActivity(t, err, client.CodeNotFound, "policy "+id+" not found")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("update_policy: %v does not match ErrNotFound", err)
	}
	_, err = e.client.DeletePolicy(t.Context(), client.DeletePolicyParams{PolicyID: id})
	wantFailedActivity(t, err, client.CodeNotFound, "policy "+id+" not found")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("delete_policy: %v does not match ErrNotFound", err)
	}
}

func TestListPoliciesEmptyIsAnArray(t *testing.T) {
	e := newTestEmulator(t)
	a := e.post(t, "/public/v1/query/list_policies", []byte(`{"organizationId":"`+testOrg+`"}`), e.key)
	if a.Status != http.StatusOK || string(a.Raw) != `{"policies":[]}` {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
}

func TestPolicyValidation(t *testing.T) {
	e := newTestEmulator(t)
	const (
		create = "ACTIVITY_TYPE_CREATE_POLICIES"
		update = "ACTIVITY_TYPE_UPDATE_POLICY_V2"
		remove = "ACTIVITY_TYPE_DELETE_POLICY"
	)
	long := strings.Repeat("x", maxNameLength+1)
	for _, tc := range []struct {
		name, op, typ, params, want string
	}{
		{"no policies field", "create_policies", create, `{}`, "missing required field parameters.policies"},
		{"empty policies", "create_policies", create, `{"policies":[]}`, "parameters.policies must hold at least one policy"},
		{"missing name", "create_policies", create, `{"policies":[{"effect":"EFFECT_ALLOW","notes":""}]}`, "missing required field parameters.policies[0].policyName"},
		{"missing effect", "create_policies", create, `{"policies":[{"policyName":"a","notes":""}]}`, "missing required field parameters.policies[0].effect"},
		{"missing notes", "create_policies", create, `{"policies":[{"policyName":"a","effect":"EFFECT_ALLOW","notes":""},{"policyName":"b","effect":"EFFECT_DENY"}]}`,
			"missing required field parameters.policies[1].notes"},
		{"bad effect", "create_policies", create, `{"policies":[{"policyName":"a","effect":"EFFECT_ALLOW","notes":""},{"policyName":"b","effect":"ALLOW","notes":""}]}`,
			`field parameters.policies[1].effect: unknown value "ALLOW"`},
		{"wrong type", "create_policies", create, `{"policies":[{"policyName":"a","effect":1,"notes":""}]}`, "wrong JSON type"},
		{"unknown field", "create_policies", create, `{"policies":[{"policyNam":"a","effect":"EFFECT_ALLOW","notes":""}]}`, `unknown field "policyNam"`},
		{"empty name", "create_policies", create, `{"policies":[{"policyName":"","effect":"EFFECT_ALLOW","notes":""}]}`, "parameters.policies[0].policyName must not be empty"},
		{"long name", "create_policies", create, `{"policies":[{"policyName":"` + long + `","effect":"EFFECT_ALLOW","notes":""}]}`, "parameters.policies[0].policyName is 257 bytes long"},
		{"update without id", "update_policy", update, `{"policyName":"a"}`, "missing required field parameters.policyId"},
		{"update empty id", "update_policy", update, `{"policyId":""}`, "parameters.policyId must not be empty"},
		{"update empty name", "update_policy", update, `{"policyId":"p","policyName":""}`, "parameters.policyName must not be empty"},
		{"update bad effect", "update_policy", update, `{"policyId":"p","policyEffect":"DENY"}`, `field parameters.policyEffect: unknown value "DENY"`},
		{"update v1 field", "update_policy", update, `{"policyId":"p","effect":"EFFECT_DENY"}`, `unknown field "effect"`},
		{"update wrong type", "update_policy", update, `{"policyId":"p","policyNotes":7}`, "wrong JSON type"},
		{"delete without id", "delete_policy", remove, `{}`, "missing required field parameters.policyId"},
		{"delete empty id", "delete_policy", remove, `{"policyId":""}`, "parameters.policyId must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/"+tc.op, submitBody(tc.typ, tc.params), e.key), http.StatusBadRequest, tc.want)
		})
	}
	wantError(t, e.post(t, "/public/v1/query/get_policy", []byte(`{"organizationId":"`+testOrg+`"}`), e.key),
		http.StatusBadRequest, "missing required field policyId")
	wantError(t, e.post(t, "/public/v1/query/get_policy", []byte(`{"organizationId":"`+testOrg+`","policyId":""}`), e.key),
		http.StatusBadRequest, "field policyId must not be empty")
	if acts, _ := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{}); len(acts.Activities) != 0 {
		t.Fatalf("a refused submit created an activity: %+v", acts.Activities)
	}
}

// list_policies orders by createdAt, then by id for equal times, whatever
// the ids say about creation.
func TestListPoliciesOrder(t *testing.T) {
	e := newTestEmulator(t)
	at := func(sec int64) client.Timestamp { return client.NewTimestamp(time.Unix(sec, 0)) }
	e.srv.mu.Lock()
	for id, created := range map[string]int64{"c": 100, "a": 300, "b": 100, "0": 200} {
		e.srv.st.Policies[id] = &client.Policy{PolicyID: id, PolicyName: id, Effect: client.EffectAllow, CreatedAt: at(created), UpdatedAt: at(created)}
	}
	e.srv.mu.Unlock()
	list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range list.Policies {
		order = append(order, p.PolicyID)
	}
	if got := strings.Join(order, ","); got != "b,c,0,a" {
		t.Fatalf("order %s, want b,c,0,a", got)
	}
}

// corpusPolicies reads one of policylang's corpus files as policies, each
// expression in its field.
func corpusPolicies(t *testing.T, file string) []client.PolicyParams {
	t.Helper()
	f, err := os.Open("../policylang/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []client.PolicyParams
	for dec := json.NewDecoder(f); dec.More(); {
		var line struct{ Field, Expr string }
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		p := client.PolicyParams{PolicyName: sprintf("corpus %d", len(out)), Effect: client.EffectAllow}
		switch line.Field {
		case "condition":
			p.Condition = line.Expr
		case "consensus":
			p.Consensus = line.Expr
		case "time":
			p.Time = line.Expr
		default:
			t.Fatalf("%s line %d: field %q", file, len(out)+1, line.Field)
		}
		out = append(out, p)
	}
	return out
}

// Every real expression of policylang's corpus (the documentation's and
// public code's) is accepted by create_policies in its field, CEL-refused
// slices and 128-bit integers included; every mistake of the corpus is
// refused, CEL-accepted double quotes, size() and arithmetic included.
func TestPolicyCorpus(t *testing.T) {
	e := newTestEmulator(t)
	valid := corpusPolicies(t, "valid.jsonl")
	for i := 0; i < len(valid); i += 20 {
		createPolicies(t, e.client, valid[i:min(i+20, len(valid))]...)
	}
	list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil || len(list.Policies) != len(valid) || len(valid) < 95 {
		t.Fatalf("%d policies stored of %d expressions: %v", len(list.Policies), len(valid), err)
	}
	for _, p := range corpusPolicies(t, "invalid.jsonl") {
		_, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{p}})
		wantFailedActivity(t, err, client.CodeInvalidArgument, "is not a valid")
	}
}

// TestPolicyOrderFollowsCreatesAndDeletes: the order every vote evaluates
// the policies in is kept up to date as policies come and go, instead of
// being sorted again for each vote.
func TestPolicyOrderFollowsCreatesAndDeletes(t *testing.T) {
	e := newTestEmulator(t)
	ctx := t.Context()
	create := func(n int) []string {
		var ids []string
		for i := range n {
			out, err := e.client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: []client.PolicyParams{{
				PolicyName: fmt.Sprintf("p%d", i), Effect: client.EffectAllow, Notes: "order"}}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, out.Result.PolicyIDs...)
		}
		return ids
	}
	check := func(when string) {
		t.Helper()
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		var got []string
		for _, p := range e.srv.policiesByID() {
			got = append(got, p.PolicyID)
		}
		want := slices.Sorted(maps.Keys(e.srv.st.Policies))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: evaluation order %v, want the stored policies by id %v", when, got, want)
		}
	}
	ids := create(5) // each create's vote builds the order, then keeps it
	check("after creates")
	for _, id := range ids[1:3] {
		if _, err := e.client.DeletePolicy(ctx, client.DeletePolicyParams{PolicyID: id}); err != nil {
			t.Fatal(err)
		}
	}
	check("after deletes")
	create(3)
	check("after more creates")
}
