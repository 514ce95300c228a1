package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

func strRef(v string) *string { return &v }

func TestPolicyRoundTrip(t *testing.T) {
	clock := testclock.New(time.Now())
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

	clock.Advance(time.Second)
	later := createPolicies(t, e.client, client.PolicyParams{PolicyName: "allow signing", Effect: client.EffectAllow}).Result.PolicyIDs[0]
	order := policyIDs(t, e)
	first, second := min(ids[0], ids[1]), max(ids[0], ids[1]) // same createdAt: by id
	if strings.Join(order, ",") != strings.Join([]string{first, second, later}, ",") {
		t.Fatalf("list order %v, want createdAt then id: %v %v %v (names need not be unique)", order, first, second, later)
	}

	clock.Advance(time.Second)
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
	_, err = e.client.DeletePolicy(t.Context(), client.DeletePolicyParams{PolicyID: id})
	wantFailedActivity(t, err, client.CodeNotFound, "policy "+id+" not found")
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
		create     = "ACTIVITY_TYPE_CREATE_POLICIES"
		update     = "ACTIVITY_TYPE_UPDATE_POLICY_V2"
		remove     = "ACTIVITY_TYPE_DELETE_POLICY"
		removeMany = "ACTIVITY_TYPE_DELETE_POLICIES"
	)
	long := strings.Repeat("x", client.MaxNameBytes+1)
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
		{"delete none", "delete_policies", removeMany, `{"policyIds":[]}`, "parameters.policyIds must list at least one policy"},
		{"delete an empty id", "delete_policies", removeMany, `{"policyIds":["p",""]}`, "parameters.policyIds[1] must not be empty"},
		{"delete one twice", "delete_policies", removeMany, `{"policyIds":["p","p"]}`, "parameters.policyIds"},
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
	order := policyIDs(t, e)
	if got := strings.Join(order, ","); got != "b,c,0,a" {
		t.Fatalf("order %s, want b,c,0,a", got)
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

// TestDeletePoliciesIsAllOrNothing: delete_policies deletes every listed
// policy in one activity, or none when one is missing.
func TestDeletePoliciesIsAllOrNothing(t *testing.T) {
	e := newTestEmulator(t)
	made, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "a", Effect: client.EffectAllow}, {PolicyName: "b", Effect: client.EffectAllow}, {PolicyName: "c", Effect: client.EffectAllow}}})
	if err != nil {
		t.Fatal(err)
	}
	ids := made.Result.PolicyIDs
	_, err = e.client.DeletePolicies(t.Context(), client.DeletePoliciesParams{PolicyIDs: []string{ids[0], "p-missing"}})
	if !errors.Is(err, client.ErrNotFound) || !strings.Contains(err.Error(), "policyIds[1]") {
		t.Fatalf("deleting a missing policy with another: %v; want NOT_FOUND naming policyIds[1]", err)
	}
	if held := policyIDs(t, e); len(held) != 3 {
		t.Fatalf("after the failed batch the service holds %v, want all three", held)
	}
	out, err := e.client.DeletePolicies(t.Context(), client.DeletePoliciesParams{PolicyIDs: []string{ids[2], ids[0]}})
	if err != nil || !slices.Equal(out.Result.PolicyIDs, []string{ids[2], ids[0]}) || len(out.Activity.Votes) != 1 {
		t.Fatalf("delete_policies: %+v, %v; want both ids in order, one activity, one vote", out, err)
	}
	if held := policyIDs(t, e); len(held) != 1 || held[0] != ids[1] {
		t.Fatalf("the service holds %v, want only %s", held, ids[1])
	}
}
