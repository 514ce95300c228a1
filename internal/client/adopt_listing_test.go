package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// listingsOf are the list_activities requests f received, in order.
func listingsOf(t *testing.T, f *fakeService) []ListActivitiesRequest {
	t.Helper()
	var out []ListActivitiesRequest
	for _, r := range f.all() {
		if strings.HasSuffix(r.Path, "/list_activities") {
			var req ListActivitiesRequest
			if err := json.Unmarshal(r.Body, &req); err != nil {
				t.Fatal(err)
			}
			out = append(out, req)
		}
	}
	return out
}

// TestPrefetchPendingListsEveryTypeInTwoRequests: the adoption listing of
// a command's operations is two list_activities, sent before any submit:
// the creates with their approved activities too, the rest waiting ones
// only. Each type's submit then finds its own earlier activity in them,
// and lists nothing more.
func TestPrefetchPendingListsEveryTypeInTwoRequests(t *testing.T) {
	p := PolicyParams{PolicyName: "p", Effect: EffectAllow, Notes: "n"}
	create := waiting(leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now()))
	update := strings.Replace(asUpdate(waiting(leftBehind(testKey.PublicKeyHex(), `{"policyId":"p-old","policyName":"renamed"}`,
		time.Now()))), `"id":"act-old"`, `"id":"act-update"`, 1)
	both := adoptionService(create + "," + update)
	byID := map[string]*fakeService{"act-old": adoptionService(create), "act-update": adoptionService(update)}
	f := &fakeService{answer: func(i int, r recorded, w http.ResponseWriter) {
		var req GetActivityRequest
		if strings.HasSuffix(r.Path, "/get_activity") && json.Unmarshal(r.Body, &req) == nil && byID[req.ActivityID] != nil {
			byID[req.ActivityID].answer(i, r, w)
			return
		}
		both.answer(i, r, w)
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })

	c.PrefetchPending(context.Background(), OpCreatePolicies, OpUpdatePolicy, OpDeletePolicies)
	if act, _, err := c.AdoptItem(context.Background(), policiesShape, p); err == nil || act == nil || act.ID != "act-old" {
		t.Fatalf("AdoptItem: %+v, %v; want act-old, still waiting", act, err)
	}
	_, err := c.UpdatePolicy(context.Background(), UpdatePolicyParams{PolicyID: "p-old", PolicyName: ptr("renamed")})
	var pending *ConsensusNeededError
	if !errors.As(err, &pending) || pending.ActivityID != "act-update" {
		t.Fatalf("UpdatePolicy: %v; want act-update adopted, still waiting", err)
	}
	got := listingsOf(t, f)
	if len(got) != 2 {
		t.Fatalf("%d listings, want the prefetch's 2: %+v", len(got), got)
	}
	slices.SortFunc(got, func(a, b ListActivitiesRequest) int { return len(b.FilterByStatus) - len(a.FilterByStatus) })
	creates, others := got[0], got[1]
	if !reflect.DeepEqual(creates.FilterByType, []string{OpCreatePolicies.Type}) ||
		!reflect.DeepEqual(creates.FilterByStatus, []string{StatusConsensusNeeded, StatusCompleted}) {
		t.Errorf("the creates' listing: %+v", creates)
	}
	slices.Sort(others.FilterByType)
	if want := []string{OpDeletePolicies.Type, OpUpdatePolicy.Type}; !reflect.DeepEqual(others.FilterByType, want) ||
		!reflect.DeepEqual(others.FilterByStatus, []string{StatusConsensusNeeded}) {
		t.Errorf("the other types' listing: %+v, want types %v waiting only", others, want)
	}
}

// TestAFailedPrefetchIsListedAgain: a prefetch the service refused leaves
// nothing behind: the submit that needs the listing lists again, and
// adopts what it finds.
func TestAFailedPrefetchIsListedAgain(t *testing.T) {
	p := PolicyParams{PolicyName: "p", Effect: EffectAllow, Notes: "n"}
	old := waiting(leftBehind(testKey.PublicKeyHex(), `{"policies":[{"policyName":"p","effect":"EFFECT_ALLOW","notes":"n"}]}`, time.Now()))
	ok := adoptionService(old)
	f := &fakeService{answer: func(i int, r recorded, w http.ResponseWriter) {
		if i == 1 {
			writeJSON(w, 400, `{"code":3,"message":"refused"}`)
			return
		}
		ok.answer(i, r, w)
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.AdoptPending = true })
	c.PrefetchPending(context.Background(), OpCreatePolicies)
	act, _, err := c.AdoptItem(context.Background(), policiesShape, p)
	if act == nil || act.ID != "act-old" {
		t.Fatalf("AdoptItem after a failed prefetch: %+v, %v; want act-old, listed again", act, err)
	}
	if n := len(listingsOf(t, f)); n != 2 {
		t.Fatalf("%d listings, want 2: the refused prefetch and the submit's own", n)
	}
}
