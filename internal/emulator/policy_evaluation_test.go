package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func TestPolicyEvaluationOutcomes(t *testing.T) {
	e := newTestEmulator(t)
	type want struct {
		p       client.PolicyParams
		outcome string // "" = the policy did not apply and is left out
	}
	cases := []want{
		{client.PolicyParams{PolicyName: "allow rename", Effect: client.EffectAllow,
			Condition: "activity.type == 'ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME' && activity.resource == 'ORGANIZATION' && activity.action == 'UPDATE'"}, outcomeAllow},
		{client.PolicyParams{PolicyName: "deny root", Effect: client.EffectDeny, Condition: "user.id == 'user-root'"}, outcomeDenyExplicit},
		{client.PolicyParams{PolicyName: "deny always", Effect: client.EffectDeny}, outcomeDenyExplicit}, // empty condition applies to all
		{client.PolicyParams{PolicyName: "other type", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_CREATE_POLICIES'"}, ""},
		{client.PolicyParams{PolicyName: "other user", Effect: client.EffectDeny, Condition: "user.id == 'someone-else'"}, ""},
		{client.PolicyParams{PolicyName: "unknown variable", Effect: client.EffectAllow, Condition: "wallet.id == 'w'"}, outcomeError},
		{client.PolicyParams{PolicyName: "missing key", Effect: client.EffectDeny, Condition: "activity.nope == 'x'"}, outcomeError},
		{client.PolicyParams{PolicyName: "not a bool", Effect: client.EffectAllow, Condition: "activity.type"}, outcomeError},
	}
	var ps []client.PolicyParams
	for _, c := range cases {
		ps = append(ps, c.p)
	}
	created := createPolicies(t, e.client, ps...)
	renamed, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Renamed"})
	if err != nil {
		t.Fatal(err)
	}

	var wantEvals []client.PolicyEvaluation
	for i, id := range created.Result.PolicyIDs {
		if cases[i].outcome != "" {
			wantEvals = append(wantEvals, client.PolicyEvaluation{PolicyID: id, Outcome: cases[i].outcome})
		}
	}
	slices.SortFunc(wantEvals, func(a, b client.PolicyEvaluation) int { return strings.Compare(a.PolicyID, b.PolicyID) })
	got, err := e.client.GetPolicyEvaluations(t.Context(), client.GetPolicyEvaluationsRequest{ActivityID: renamed.Activity.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.PolicyEvaluations) != 1 {
		t.Fatalf("want one evaluation (one vote), got %+v", got.PolicyEvaluations)
	}
	rec := got.PolicyEvaluations[0]
	if rec.VoteID != renamed.Activity.Votes[0].ID || !slices.Equal(rec.PolicyEvaluations, wantEvals) {
		t.Fatalf("evaluations = %+v\nwant (by policy id) %+v", rec, wantEvals)
	}
	// Outcomes are recorded, not enforced on root users: the rename completed
	// although policies deny it.
	if renamed.Activity.Status != client.StatusCompleted {
		t.Fatalf("status %s", renamed.Activity.Status)
	}

	// The create_policies activity itself ran before any policy existed: [] (not null).
	body, _ := json.Marshal(client.GetPolicyEvaluationsRequest{OrganizationID: testOrg, ActivityID: created.Activity.ID})
	a := e.post(t, "/public/v1/query/get_policy_evaluations", body, e.key)
	if a.Status != http.StatusOK || !strings.Contains(string(a.Raw), `"policyEvaluations":[]`) {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
}

// Each vote is evaluated for its voter: user.id is the voter's id.
func TestPolicyEvaluationPerVoter(t *testing.T) {
	k2, err := client.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEmulator(t, func(o *Options) {
		o.RootUsers = append(o.RootUsers, RootUser{UserID: "user-2", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
	})
	params := `{"policies":[{"policyName":"deny user 2","effect":"EFFECT_DENY","notes":"","condition":"user.id == 'user-2'"}]}`
	if a := e.post(t, "/public/v1/submit/create_policies", submitBody("ACTIVITY_TYPE_CREATE_POLICIES", params), e.key); a.Status != http.StatusOK {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
	second := clientFor(t, e.http.URL, k2)
	created, err := second.ListActivities(t.Context(), client.ListActivitiesRequest{})
	if err != nil || len(created.Activities) != 1 {
		t.Fatalf("%+v %v", created, err)
	}
	if _, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: created.Activities[0].Fingerprint}); err != nil {
		t.Fatal(err)
	}
	// The policy exists once the second approval ran the activity; the next
	// activity is evaluated for each voter in turn.
	a := e.post(t, "/public/v1/submit/update_organization_name", submitBody("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", `{"organizationName":"x"}`), e.key)
	if a.Status != http.StatusOK {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
	act := mustJSONAt[map[string]any](t, a.Body, "activity")
	if _, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: mustJSONAt[string](t, act, "fingerprint")}); err != nil {
		t.Fatal(err)
	}
	got, err := e.client.GetPolicyEvaluations(t.Context(), client.GetPolicyEvaluationsRequest{ActivityID: mustJSONAt[string](t, act, "id")})
	if err != nil || len(got.PolicyEvaluations) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	if first := got.PolicyEvaluations[0].PolicyEvaluations; len(first) != 0 {
		t.Fatalf("root user's vote: %+v, want none", first)
	}
	if v := got.PolicyEvaluations[1].PolicyEvaluations; len(v) != 1 || v[0].Outcome != outcomeDenyExplicit {
		t.Fatalf("user-2's vote: %+v, want DENY_EXPLICIT", v)
	}
}

func TestResourceAction(t *testing.T) {
	for _, tc := range []struct{ typ, resource, action string }{
		{"ACTIVITY_TYPE_CREATE_POLICIES", "POLICY", "CREATE"},
		{"ACTIVITY_TYPE_UPDATE_POLICY_V2", "POLICY", "UPDATE"},
		{"ACTIVITY_TYPE_DELETE_POLICY", "POLICY", "DELETE"},
		{"ACTIVITY_TYPE_SET_IP_ALLOWLIST", "IP_ALLOWLIST", "UPDATE"},
		{"ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", "IP_ALLOWLIST", "DELETE"},
		{"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "PRIVATE_KEY", "SIGN"},
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "PRIVATE_KEY", "SIGN"},
		{"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "ORGANIZATION", "UPDATE"},
		{"ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", "PRIVATE_KEY_TAG", "DELETE"},
		{"ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", "OAUTH_PROVIDER", "CREATE"},
		{"ACTIVITY_TYPE_INIT_OTP_V3", "OTP", "INIT"},
		{"ACTIVITY_TYPE_RECOVER_USER", "USER", "RECOVER"},
	} {
		if r, a := resourceAction(tc.typ); r != tc.resource || a != tc.action {
			t.Errorf("%s: resource %s action %s, want %s %s", tc.typ, r, a, tc.resource, tc.action)
		}
	}
}
