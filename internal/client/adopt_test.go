package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/jsonseeds"
)

// leftBehind is a create_policies activity that an earlier run submitted
// with key and that completed once a second person approved it.
func leftBehind(key, intent string, created time.Time) string {
	vote := func(pub string) string {
		return fmt.Sprintf(`{"id":"v","userId":"u","user":{},"activityId":"act-old","selection":%q,"message":"","publicKey":%q,`+
			`"signature":"","scheme":"","createdAt":"2026-11-21T22:00:00Z"}`, VoteApproved, pub)
	}
	return fmt.Sprintf(`{"id":"act-old","organizationId":"org-1","status":%q,"type":%q,"intent":{%q:%s},`+
		`"result":{%q:{"policyIds":["p-old","p-old-2"]}},"votes":[%s,%s],"fingerprint":"fp-old","canApprove":false,"canReject":false,`+
		`"createdAt":{"seconds":"%d","nanos":"0"},"updatedAt":{"seconds":"%d","nanos":"0"}}`,
		StatusCompleted, OpCreatePolicies.Type, OpCreatePolicies.IntentKey, intent, OpCreatePolicies.ResultKey,
		vote(key), vote("03other"), created.Unix(), created.Unix())
}

// adoptionService lists old as this key's earlier activity, serves it on
// get_activity, holds every policy but those named gone, and answers a
// submit with a new completed activity.
func adoptionService(old string, gone ...string) *fakeService {
	return &fakeService{answer: func(_ int, r recorded, w http.ResponseWriter) {
		switch r.Path {
		case "/public/v1/query/list_activities":
			writeJSON(w, 200, `{"activities":[`+old+`]}`)
		case "/public/v1/query/get_activity":
			writeJSON(w, 200, `{"activity":`+old+`}`)
		case "/public/v1/query/get_policy":
			var req GetPolicyRequest
			_ = json.Unmarshal(r.Body, &req)
			if slices.Contains(gone, req.PolicyID) {
				writeJSON(w, 404, `{"code":5,"message":"policy `+req.PolicyID+` not found"}`)
				return
			}
			writeJSON(w, 200, `{"policy":{"policyId":"`+req.PolicyID+`","policyName":"p","effect":"EFFECT_ALLOW"}}`)
		default:
			writeJSON(w, 200, activityJSON(StatusCompleted, true))
		}
	}}
}

func paths(f *fakeService) []string {
	var out []string
	for _, r := range f.all() {
		out = append(out, strings.TrimPrefix(r.Path, "/public/v1/"))
	}
	return out
}

var policiesShape = ItemShape{Op: OpCreatePolicies, ItemsKey: "policies"}

// TestAdoptItemTakesItsPlaceInAnEarlierBatch: an earlier run's batch of
// two policies completed after approval; each policy of this run adopts
// its own position in it, once, and submits nothing.
func TestAdoptItemTakesItsPlaceInAnEarlierBatch(t *testing.T) {
	p := PolicyParams{PolicyName: "p", Effect: EffectAllow, Notes: "n"}
	q := PolicyParams{PolicyName: "q", Effect: EffectDeny, Notes: "n"}
	old := leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"q","effect":"EFFECT_DENY","notes":"n"},`+
		`{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now().Add(-time.Hour))
	f := adoptionService(old)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })

	act, pos, err := c.AdoptItem(context.Background(), policiesShape, p)
	if err != nil || act == nil || act.ID != "act-old" || pos != 1 {
		t.Fatalf("AdoptItem(p): %+v at %d, %v; want act-old at 1", act, pos, err)
	}
	// Taken once: the same policy again in the same run is a second one.
	if act, _, err := c.AdoptItem(context.Background(), policiesShape, p); err != nil || act != nil {
		t.Fatalf("AdoptItem(p) again: %+v, %v; want nothing", act, err)
	}
	if act, pos, err := c.AdoptItem(context.Background(), policiesShape, q); err != nil || act == nil || pos != 0 {
		t.Fatalf("AdoptItem(q): %+v at %d, %v; want act-old at 0", act, pos, err)
	}
	want := []string{"query/list_activities", "query/get_policy", "query/get_activity", "query/get_policy", "query/get_activity"}
	if !reflect.DeepEqual(paths(f), want) {
		t.Fatalf("requests %v, want %v: the list once, each object read back, and nothing submitted", paths(f), want)
	}
	// A batch operation is never adopted whole by submit: its items were.
	if got, err := c.CreatePolicies(context.Background(), CreatePoliciesParams{Policies: []PolicyParams{q, p}}); err != nil || got.Activity.ID != "act-9" {
		t.Fatalf("CreatePolicies: %+v, %v; want a new activity", got, err)
	}
}

func TestAdoptItemDoesNotAdoptWhatDiffers(t *testing.T) {
	item := PolicyParams{PolicyName: "p", Effect: EffectAllow, Notes: "n"}
	tests := map[string]struct {
		old   string
		adopt bool
		want  []string
	}{
		"another intent": {leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"q"}]}`, time.Now()), true,
			[]string{"query/list_activities"}},
		"another key": {leftBehind("03someoneelse", `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now()), true,
			[]string{"query/list_activities"}},
		"past the approval window": {leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`,
			time.Now().Add(-approvalWindow-time.Hour)), true, []string{"query/list_activities"}},
		"adoption off": {leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now()), false,
			nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := adoptionService(tc.old)
			c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = tc.adopt })
			if act, _, err := c.AdoptItem(context.Background(), policiesShape, item); err != nil || act != nil {
				t.Fatalf("%+v, %v; want nothing adopted", act, err)
			}
			if !reflect.DeepEqual(paths(f), tc.want) {
				t.Fatalf("requests %v, want %v", paths(f), tc.want)
			}
		})
	}
}

// TestSubmitAdoptsAWholeActivity: an operation that takes one object is
// adopted whole, by submit itself, while its activity waits for approval.
func TestSubmitAdoptsAWholeActivity(t *testing.T) {
	old := asUpdate(waiting(leftBehind(testKey.PublicKeyHex(), `{"policyId":"p-old","policyName":"renamed"}`, time.Now())))
	f := adoptionService(old)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })
	got, err := c.UpdatePolicy(context.Background(), UpdatePolicyParams{PolicyID: "p-old", PolicyName: ptr("renamed")})
	if err == nil || got != nil {
		t.Fatalf("%+v, %v; want the adopted act-old, still waiting", got, err)
	}
	var pending *ConsensusNeededError
	if !errors.As(err, &pending) || pending.ActivityID != "act-old" {
		t.Fatalf("%v; want act-old waiting for approval", err)
	}
}

// TestACompletedUpdateIsNeverAdopted: an update that completed after
// approval is history, not this run's change: renaming A→B→A→B within a
// day must submit the last A→B again, or the policy stays A while the
// apply reports B. The listing does not even ask for completed updates.
func TestACompletedUpdateIsNeverAdopted(t *testing.T) {
	old := asUpdate(leftBehind(testKey.PublicKeyHex(), `{"policyId":"p-old","policyName":"renamed"}`, time.Now()))
	f := adoptionService(old)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })
	if _, err := c.UpdatePolicy(context.Background(), UpdatePolicyParams{PolicyID: "p-old", PolicyName: ptr("renamed")}); err == nil {
		t.Fatal("the fake's new activity has no update result, so a submit must fail to decode it: was act-old adopted?")
	}
	if want := []string{"query/list_activities", "submit/update_policy"}; !reflect.DeepEqual(paths(f), want) {
		t.Fatalf("requests %v, want %v", paths(f), want)
	}
	var req ListActivitiesRequest
	_ = json.Unmarshal(f.all()[0].Body, &req)
	if !reflect.DeepEqual(req.FilterByStatus, []string{StatusConsensusNeeded}) {
		t.Fatalf("listed statuses %v; want only %s for an update", req.FilterByStatus, StatusConsensusNeeded)
	}
}

// TestACompletedCreateWhoseObjectIsGoneIsNotAdopted: re-creating after a
// destroy (or an out-of-band delete, or a -replace) under consensus must
// make a new object, not report the earlier create's id, which is gone.
// The item's next match (the same policy twice in the earlier batch,
// both gone) is read too, and a new create is left to the caller.
func TestACompletedCreateWhoseObjectIsGoneIsNotAdopted(t *testing.T) {
	p := PolicyParams{PolicyName: "p", Effect: EffectAllow, Notes: "n"}
	old := leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"},`+
		`{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now().Add(-time.Hour))
	f := adoptionService(old, "p-old", "p-old-2")
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })
	if act, _, err := c.AdoptItem(context.Background(), policiesShape, p); err != nil || act != nil {
		t.Fatalf("AdoptItem: %+v, %v; want nothing adopted", act, err)
	}
	if want := []string{"query/list_activities", "query/get_policy", "query/get_policy"}; !reflect.DeepEqual(paths(f), want) {
		t.Fatalf("requests %v, want %v", paths(f), want)
	}
	// Only one of the two gone: the item adopts the one still there.
	f = adoptionService(old, "p-old")
	c, _ = newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })
	if act, pos, err := c.AdoptItem(context.Background(), policiesShape, p); err != nil || act == nil || pos != 1 {
		t.Fatalf("AdoptItem: %+v at %d, %v; want act-old at 1", act, pos, err)
	}
}

// TestAFailedListingIsNotKept: a first caller whose listing failed (here,
// canceled) leaves nothing behind; the next caller lists again.
func TestAFailedListingIsNotKept(t *testing.T) {
	p := PolicyParams{PolicyName: "p", Effect: EffectAllow, Notes: "n"}
	old := waiting(leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now()))
	f := adoptionService(old)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.AdoptItem(canceled, policiesShape, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("AdoptItem on a canceled context: %v; want context.Canceled", err)
	}
	act, _, err := c.pending.findItem(context.Background(), c, policiesShape, p)
	if err != nil || act == nil {
		t.Fatalf("the next caller: %+v, %v; want act-old, listed again", act, err)
	}
}

// waiting is an activity of leftBehind's shape that still waits for
// approval.
func waiting(act string) string {
	return strings.Replace(act, `"status":"`+StatusCompleted+`"`, `"status":"`+StatusConsensusNeeded+`"`, 1)
}

// asUpdate is an activity of leftBehind's shape that updates policy p-old.
func asUpdate(act string) string {
	return strings.NewReplacer(OpCreatePolicies.Type, OpUpdatePolicy.Type, OpCreatePolicies.IntentKey, OpUpdatePolicy.IntentKey,
		OpCreatePolicies.ResultKey, OpUpdatePolicy.ResultKey, `{"policyIds":["p-old","p-old-2"]}`, `{"policyId":"p-old"}`).Replace(act)
}

func TestIntentMatchingIgnoresEmptyValues(t *testing.T) {
	params := SetIPAllowlistParams{OnEvaluationError: "DENY"} // Rules nil
	echoed := json.RawMessage(`{"rules":[],"onEvaluationError":"DENY","publicKey":null}`)
	a, _ := normalizedJSON(params)
	b, _ := normalizedJSON(echoed)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%v != %v", a, b)
	}
	other, _ := normalizedJSON(json.RawMessage(`{"rules":[{"cidr":"10.0.0.0/8"}],"onEvaluationError":"DENY"}`))
	if reflect.DeepEqual(a, other) {
		t.Fatal("different rules compared equal")
	}
}

// checkNoEmpty fails if a normalised value still holds a null, an empty
// object or an empty list as a member of an object.
func checkNoEmpty(t *testing.T, v any, at string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if isEmpty(e) {
				t.Fatalf("normalised value keeps the empty member %s.%s = %#v", at, k, e)
			}
			checkNoEmpty(t, e, at+"."+k)
		}
	case []any:
		for i, e := range x {
			checkNoEmpty(t, e, fmt.Sprintf("%s[%d]", at, i))
		}
	}
}

// FuzzJSONNormalisation asserts: no panic; normalizedJSON, which compares
// an echoed intent with its parameters, fails on text that is not JSON,
// drops every empty member, and is idempotent: normalising its marshalled
// result, or the result itself, gives the same value.
func FuzzJSONNormalisation(f *testing.F) {
	for _, s := range jsonseeds.Texts() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n1, err := normalizedJSON(json.RawMessage(s))
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("normalizedJSON(%q): empty error message", s)
			}
			return
		}
		if !json.Valid([]byte(s)) {
			t.Fatalf("normalizedJSON accepted %q, which is not JSON, as %#v", s, n1)
		}
		checkNoEmpty(t, n1, "$")
		b, err := json.Marshal(n1)
		if err != nil {
			t.Fatalf("normalizedJSON(%q) = %#v, which does not marshal: %v", s, n1, err)
		}
		n2, err := normalizedJSON(json.RawMessage(b))
		if err != nil || !reflect.DeepEqual(n1, n2) {
			t.Fatalf("normalizedJSON is not idempotent on %q: %#v, then %s gives %#v (%v)", s, n1, b, n2, err)
		}
		n3, err := normalizedJSON(n1)
		if err != nil || !reflect.DeepEqual(n1, n3) {
			t.Fatalf("normalizedJSON(normalizedJSON(%q)) = %#v, want %#v (%v)", s, n3, n1, err)
		}
		if b2, _ := json.Marshal(n2); !bytes.Equal(b, b2) {
			t.Fatalf("normalised %q marshals as %s, then as %s", s, b, b2)
		}
	})
}

// Numbers compare exactly: integers that differ only past 2^53 are two
// intents, and one number written two ways is one.
func TestIntentMatchingComparesNumbersExactly(t *testing.T) {
	norm := func(s string) any {
		t.Helper()
		v, err := normalizedJSON(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if reflect.DeepEqual(norm(`{"n":9007199254740993}`), norm(`{"n":9007199254740992}`)) {
		t.Error("9007199254740993 and 9007199254740992 compared equal")
	}
	if !reflect.DeepEqual(norm(`{"n":[1.0,1e3]}`), norm(`{"n":[1,1000]}`)) {
		t.Error("1.0 and 1, or 1e3 and 1000, compared different")
	}
	if _, err := normalizedJSON(json.RawMessage(`{"n":1} {"n":2}`)); err == nil {
		t.Error("two JSON values were taken for one")
	}
}
