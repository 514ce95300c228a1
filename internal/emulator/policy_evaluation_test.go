package emulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
)

// policyWorld is an emulator with one root user and three non-root fixture
// users with API keys: bob and carol tagged treasury, dave an intern.
type policyWorld struct {
	*testEmulator
	bob, carol, dave *client.Client
}

func newPolicyWorld(t *testing.T, mutate ...func(*Options)) *policyWorld {
	t.Helper()
	keys := make([]*client.APIKey, 3)
	for i := range keys {
		k := clienttest.NewAPIKey(t)
		keys[i] = k
	}
	user := func(id string, key *client.APIKey, tags ...string) FixtureUser {
		return FixtureUser{UserID: id, UserName: id, UserEmail: id + "@example.com", UserTags: tags,
			APIKeys: []FixtureAPIKey{{APIKeyName: id + " key", PublicKey: key.PublicKeyHex()}}}
	}
	e := newTestEmulator(t, append([]func(*Options){func(o *Options) {
		o.Fixtures = &Fixtures{Users: []FixtureUser{
			user("bob", keys[0], "tag-treasury"), user("carol", keys[1], "tag-treasury"), user("dave", keys[2], "tag-interns")}}
	}}, mutate...)...)
	return &policyWorld{e, clientFor(t, e.http.URL, keys[0]), clientFor(t, e.http.URL, keys[1]), clientFor(t, e.http.URL, keys[2])}
}

// outcomes are the policy evaluations recorded for each vote on an
// activity, as policy name → outcome.
func (w *policyWorld) outcomes(t *testing.T, activityID string) []map[string]string {
	t.Helper()
	names := map[string]string{}
	list, err := w.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Policies {
		names[p.PolicyID] = p.PolicyName
	}
	got, err := w.client.GetPolicyEvaluations(t.Context(), client.GetPolicyEvaluationsRequest{ActivityID: activityID})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range got.PolicyEvaluations {
		m := map[string]string{}
		for _, ev := range rec.PolicyEvaluations {
			m[names[ev.PolicyID]] = ev.Outcome
		}
		out = append(out, m)
	}
	return out
}

func createTag(c *client.Client, t *testing.T, name string) (*client.Submitted[client.CreatePrivateKeyTagResult], error) {
	return c.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: name})
}

// denied checks that err is the activity FAILED as denied, and returns its id.
func denied(t *testing.T, err error, want string) string {
	t.Helper()
	var ae *client.ActivityError
	if !errors.As(err, &ae) || ae.Status != client.StatusFailed || ae.Failure == nil ||
		ae.Failure.Code != client.CodePermissionDenied || !strings.Contains(ae.Failure.Message, want) {
		t.Fatalf("got %v, want the activity denied (PERMISSION_DENIED) with %q", err, want)
	}
	return ae.ActivityID
}

// The documented order decides a non-root user's activity: a root quorum
// allows; else an applicable deny denies; else an applicable allow whose
// consensus holds allows; else nothing allows it.
func TestPolicyDecisionOrder(t *testing.T) {
	w := newPolicyWorld(t)
	tagCreate := "activity.resource == 'PRIVATE_KEY' && activity.action == 'CREATE' && activity.kind == 'CREATE_PRIVATE_KEY_TAG'"

	// No policy: implicit deny, and no policy outcome recorded.
	_, err := createTag(w.bob, t, "t0")
	id := denied(t, err, "is implicitly denied: no policy allows it")
	if got := w.outcomes(t, id); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("outcomes %v, want one vote with none", got)
	}

	createPolicies(t, w.client,
		client.PolicyParams{PolicyName: "treasury creates tags", Effect: client.EffectAllow, Condition: tagCreate,
			Consensus: "approvers.any(u, u.tags.contains('tag-treasury'))"},
		client.PolicyParams{PolicyName: "interns never", Effect: client.EffectDeny,
			Consensus: "approvers.any(u, u.email == 'dave@example.com')"},
		client.PolicyParams{PolicyName: "only in 1999", Effect: client.EffectAllow, Condition: tagCreate,
			Time: "time.now < Timestamp('2000-01-01T00:00:00Z')"},
		client.PolicyParams{PolicyName: "reads eth.tx", Effect: client.EffectAllow, Condition: "eth.tx.to == '0x1'"},
		client.PolicyParams{PolicyName: "other resource", Effect: client.EffectDeny, Condition: "activity.resource == 'WALLET'"})

	// Allowed: bob's consensus holds.
	ok, err := createTag(w.bob, t, "t1")
	if err != nil || ok.Activity.Status != client.StatusCompleted || ok.Result.PrivateKeyTagID == "" {
		t.Fatalf("bob: %+v %v", ok, err)
	}
	want := map[string]string{"treasury creates tags": client.OutcomeAllow, "only in 1999": client.OutcomeTimeInactive, "reads eth.tx": client.OutcomeError}
	if got := w.outcomes(t, ok.Activity.ID); len(got) != 1 || !mapsEqual(got[0], want) {
		t.Fatalf("bob's outcomes %v, want %v", got, want)
	}

	// Explicit deny wins over nothing else allowing: dave is named by the deny.
	_, err = createTag(w.dave, t, "t2")
	id = denied(t, err, `is denied by policy`)
	if !strings.Contains(err.Error(), `"interns never"`) {
		t.Fatalf("the denial does not name the policy: %v", err)
	}
	want = map[string]string{"treasury creates tags": client.OutcomeRequiresConsensus, "interns never": client.OutcomeDenyExplicit,
		"only in 1999": client.OutcomeTimeInactive, "reads eth.tx": client.OutcomeError}
	if got := w.outcomes(t, id); len(got) != 1 || !mapsEqual(got[0], want) {
		t.Fatalf("dave's outcomes %v, want %v", got, want)
	}

	// A root quorum allows whatever the policies say.
	root, err := createTag(w.client, t, "t3")
	if err != nil || root.Activity.Status != client.StatusCompleted {
		t.Fatalf("root: %+v %v", root, err)
	}

	// An activity only the root quorum governs: policies have no say.
	_, err = w.bob.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "x"})
	denied(t, err, "only the root quorum can approve ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME")

	// A deny that applies to everyone stops non-root users, not a root quorum.
	createPolicies(t, w.client, client.PolicyParams{PolicyName: "freeze tags", Effect: client.EffectDeny, Condition: tagCreate})
	_, err = createTag(w.bob, t, "t4")
	denied(t, err, `"freeze tags"`)
	if _, err := createTag(w.client, t, "t5"); err != nil {
		t.Fatalf("root under a deny: %v", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A consensus expression over approvers holds an activity in
// CONSENSUS_NEEDED until enough approvals arrive; then it runs.
func TestPolicyConsensusNeededThenCompleted(t *testing.T) {
	w := newPolicyWorld(t)
	createPolicies(t, w.client, client.PolicyParams{PolicyName: "two of treasury", Effect: client.EffectAllow,
		Condition: "activity.kind == 'CREATE_PRIVATE_KEY_TAG'",
		Consensus: "approvers.filter(u, u.tags.contains('tag-treasury')).count() >= 2 && credentials.all(c, c.type == 'CREDENTIAL_TYPE_API_KEY_P256')"})

	_, err := createTag(w.bob, t, "needs two")
	var needed *client.ConsensusNeededError
	if !errors.As(err, &needed) || needed.Status != client.StatusConsensusNeeded {
		t.Fatalf("bob: %v, want consensus needed", err)
	}
	// dave's approval does not count for the policy.
	approve(t, "dave", w.dave, needed, client.StatusConsensusNeeded)
	nextMillisecond()
	done := approve(t, "carol", w.carol, needed, client.StatusCompleted)
	var res client.CreatePrivateKeyTagResult
	if err := json.Unmarshal(done.Result["createPrivateKeyTagResult"], &res); err != nil || res.PrivateKeyTagID == "" {
		t.Fatalf("result %s: %v", done.Result["createPrivateKeyTagResult"], err)
	}
	got := w.outcomes(t, needed.ActivityID)
	wantOutcomes := []string{client.OutcomeRequiresConsensus, client.OutcomeRequiresConsensus, client.OutcomeAllow}
	if len(got) != 3 {
		t.Fatalf("outcomes %v, want one per vote", got)
	}
	for i, o := range wantOutcomes {
		if got[i]["two of treasury"] != o {
			t.Fatalf("vote %d: %v, want %s", i, got[i], o)
		}
	}
	// The activity is over: no more votes.
	nextMillisecond()
	if _, err := w.dave.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: needed.Fingerprint}); err == nil {
		t.Fatal("a vote on a completed activity was accepted")
	}
}

// A non-root user cannot vote on what no policy holds for consensus: here
// the root quorum of two holds it.
func TestNonRootUserCannotVoteOnRootQuorum(t *testing.T) {
	k2 := clienttest.NewAPIKey(t)
	w := newPolicyWorld(t, func(o *Options) {
		o.RootUsers = append(o.RootUsers, RootUser{UserID: "user-2", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
	})
	_, err := createTag(w.client, t, "root quorum")
	var needed *client.ConsensusNeededError
	if !errors.As(err, &needed) {
		t.Fatalf("root with a quorum of 2: %v", err)
	}
	_, err = w.bob.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: needed.Fingerprint})
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusForbidden || !strings.Contains(apiErr.Message, "no policy holds") {
		t.Fatalf("bob's vote: %v", err)
	}
	approve(t, "the second root", clientFor(t, w.http.URL, k2), needed, client.StatusCompleted)
}

// Conditions see the request: activity.params the activity exposes, the
// private key it signs with, and time.now.
func TestPolicyConditionsSeeTheRequest(t *testing.T) {
	w := newPolicyWorld(t)
	key, err := w.client.CreatePrivateKeys(t.Context(), client.CreatePrivateKeysParams{PrivateKeys: []client.PrivateKeyParams{{
		PrivateKeyName: "hot", Curve: "CURVE_SECP256K1", AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}, PrivateKeyTags: []string{}}}})
	if err != nil {
		t.Fatal(err)
	}
	keyID := key.Result.PrivateKeys[0].PrivateKeyID
	createPolicies(t, w.client,
		client.PolicyParams{PolicyName: "bob signs keccak with hot", Effect: client.EffectAllow,
			Condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && private_key.label == 'hot' && " +
				"private_key.id == '" + keyID + "' && activity.params.hash_function == 'HASH_FUNCTION_KECCAK256'",
			Consensus: "approvers.any(u, u.id == 'bob')",
			Time:      "time.now > Timestamp('2020-01-01T00:00:00Z')"})
	sign := func(hash string) error {
		_, err := w.bob.SignRawPayload(t.Context(), client.SignRawPayloadParams{SignWith: keyID, Payload: "00",
			Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: hash})
		return err
	}
	if err := sign("HASH_FUNCTION_KECCAK256"); err != nil {
		t.Fatalf("allowed signature: %v", err)
	}
	denied(t, sign("HASH_FUNCTION_SHA256"), "implicitly denied")
}
