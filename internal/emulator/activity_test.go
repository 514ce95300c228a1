package emulator

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const renameType = "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME"

func TestIdenticalResubmissionIsTheSameActivity(t *testing.T) {
	e := newTestEmulator(t)
	body := submitBody(renameType, `{"organizationName":"Once"}`)
	first := e.post(t, "/public/v1/submit/update_organization_name", body, e.key)
	second := e.post(t, "/public/v1/submit/update_organization_name", body, e.key)
	if first.Status != 200 || second.Status != 200 {
		t.Fatalf("%d %s / %d %s", first.Status, first.Raw, second.Status, second.Raw)
	}
	id1 := mustJSONAt[string](t, first.Body, "activity", "id")
	id2 := mustJSONAt[string](t, second.Body, "activity", "id")
	if id1 != id2 {
		t.Fatalf("resubmission made a second activity: %v then %v", id1, id2)
	}
	time.Sleep(2 * time.Millisecond) // a new timestampMs
	third := e.post(t, "/public/v1/submit/update_organization_name", submitBody(renameType, `{"organizationName":"Once"}`), e.key)
	if mustJSONAt[string](t, third.Body, "activity", "id") == id1 {
		t.Fatal("a new timestampMs must make a new activity")
	}
	list, err := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{})
	if err != nil || len(list.Activities) != 2 {
		t.Fatalf("want 2 activities, got %d (%v)", len(list.Activities), err)
	}
}

func TestSubmitAnswerShape(t *testing.T) {
	e := newTestEmulator(t)
	a := e.post(t, "/public/v1/submit/update_organization_name", submitBody(renameType, `{"organizationName":"Shape"}`), e.key)
	act := mustJSONAt[map[string]any](t, a.Body, "activity")
	if _, ok := act["createdAt"].(string); !ok {
		t.Errorf("submit answer createdAt = %#v, want a string", act["createdAt"])
	}
	intent := mustJSONAt[map[string]any](t, act, "intent", "updateOrganizationNameIntent")
	if intent["organizationName"] != "Shape" {
		t.Errorf("intent does not echo the parameters: %v", act["intent"])
	}
	result := mustJSONAt[map[string]any](t, act, "result", "updateOrganizationNameResult")
	if result["organizationName"] != "Shape" || result["organizationId"] != testOrg {
		t.Errorf("result = %v", result)
	}
	for _, k := range []string{"id", "organizationId", "status", "type", "votes", "fingerprint", "canApprove", "canReject", "updatedAt"} {
		if _, ok := act[k]; !ok {
			t.Errorf("activity lacks %s", k)
		}
	}
	got, err := e.client.GetActivity(t.Context(), client.GetActivityRequest{ActivityID: mustJSONAt[string](t, act, "id")})
	if err != nil || got.CreatedAt.Seconds == "" || got.CreatedAt.Text != "" {
		t.Fatalf("get_activity createdAt = %+v (%v), want the {seconds, nanos} shape", got.CreatedAt, err)
	}
	if len(got.Votes) != 1 || got.Votes[0].UserID != "user-root" || got.Votes[0].Selection != "VOTE_SELECTION_APPROVED" || got.Votes[0].User.UserName != "root" {
		t.Errorf("votes = %+v", got.Votes)
	}
	if _, err := e.client.GetActivity(t.Context(), client.GetActivityRequest{ActivityID: "no-such-activity"}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown activity: %v", err)
	}
}

// quorumEmulator has two root users and needs both to approve.
func quorumEmulator(t *testing.T) (*testEmulator, *client.Client) {
	k2, _ := client.GenerateAPIKey()
	e := newTestEmulator(t, func(o *Options) {
		o.RootUsers = append(o.RootUsers, RootUser{UserID: "user-2", UserName: "second", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
	})
	return e, clientFor(t, e.http.URL, k2)
}

func TestConsensusApprove(t *testing.T) {
	e, second := quorumEmulator(t)
	_, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Agreed"})
	var pending *client.ConsensusNeededError
	if !errors.As(err, &pending) || pending.Status != client.StatusConsensusNeeded {
		t.Fatalf("want an approval-required error, got %v", err)
	}
	act, _ := e.client.GetActivity(t.Context(), client.GetActivityRequest{ActivityID: pending.ActivityID})
	if !act.CanApprove || !act.CanReject || len(act.Votes) != 1 {
		t.Fatalf("pending activity = %+v", act)
	}
	if who, _ := e.client.Whoami(t.Context(), whoami()); who.OrganizationName != "Test Org" {
		t.Fatalf("an activity awaiting consensus was applied: %q", who.OrganizationName)
	}
	// The requester's vote is already counted: voting again is refused.
	if _, err := e.client.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: pending.Fingerprint}); err == nil {
		t.Fatal("the requester approved twice")
	}
	voted, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: pending.Fingerprint})
	if err != nil || voted.Status != client.StatusCompleted || voted.ID != pending.ActivityID {
		t.Fatalf("approval: %+v %v", voted, err)
	}
	act, _ = e.client.GetActivity(t.Context(), client.GetActivityRequest{ActivityID: pending.ActivityID})
	if len(act.Votes) != 2 || act.Votes[1].UserID != "user-2" || act.CanApprove || act.Result["updateOrganizationNameResult"] == nil {
		t.Fatalf("approved activity = %+v", act)
	}
	if who, _ := e.client.Whoami(t.Context(), whoami()); who.OrganizationName != "Agreed" {
		t.Fatalf("approved rename not applied: %q", who.OrganizationName)
	}
	evals, err := e.client.GetPolicyEvaluations(t.Context(), client.GetPolicyEvaluationsRequest{ActivityID: act.ID})
	if err != nil || len(evals.PolicyEvaluations) != 2 || evals.PolicyEvaluations[1].VoteID != act.Votes[1].ID {
		t.Fatalf("policy evaluations = %+v %v", evals, err)
	}
	if _, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: pending.Fingerprint}); err == nil {
		t.Fatal("a completed activity accepted another vote")
	}
	if _, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: "feed"}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("unknown fingerprint: %v", err)
	}
}

func TestConsensusReject(t *testing.T) {
	e, second := quorumEmulator(t)
	_, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Refused"})
	var pending *client.ConsensusNeededError
	if !errors.As(err, &pending) {
		t.Fatal(err)
	}
	voted, err := second.RejectActivity(t.Context(), client.VoteParams{Fingerprint: pending.Fingerprint})
	if err != nil || voted.Status != client.StatusRejected {
		t.Fatalf("rejection: %+v %v", voted, err)
	}
	_, err = e.client.WaitForActivity(t.Context(), pending.ActivityID)
	var failed *client.ActivityError
	if !errors.As(err, &failed) || failed.Status != client.StatusRejected {
		t.Fatalf("waiting on a rejected activity: %v", err)
	}
	if who, _ := e.client.Whoami(t.Context(), whoami()); who.OrganizationName != "Test Org" {
		t.Fatalf("a rejected rename was applied: %q", who.OrganizationName)
	}
}

func TestClientWaitsForConsensus(t *testing.T) {
	e, second := quorumEmulator(t)
	done := make(chan error, 1)
	go func() {
		_, err := e.client.WithApprovalWait(30*time.Second).UpdateOrganizationName(context.Background(), client.UpdateOrganizationNameParams{OrganizationName: "Waited"})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, _ := second.ListActivities(t.Context(), client.ListActivitiesRequest{FilterByStatus: []string{client.StatusConsensusNeeded}})
		if list != nil && len(list.Activities) == 1 {
			if _, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: list.Activities[0].Fingerprint}); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the activity never appeared as CONSENSUS_NEEDED")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatalf("a client waiting for approval: %v", err)
	}
}

func TestListActivitiesFiltersAndPages(t *testing.T) {
	e := newTestEmulator(t)
	var ids []string
	for _, name := range []string{"a", "b", "c", "d"} {
		s, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: name})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.Activity.ID)
	}
	list := func(req client.ListActivitiesRequest) []string {
		t.Helper()
		resp, err := e.client.ListActivities(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return idsOf(resp.Activities, func(a client.Activity) string { return a.ID })
	}
	if got := list(client.ListActivitiesRequest{}); !slices.Equal(got, []string{ids[3], ids[2], ids[1], ids[0]}) {
		t.Errorf("all, newest first: %v", got)
	}
	if got := list(client.ListActivitiesRequest{PaginationOptions: &client.Pagination{Limit: "2"}}); !slices.Equal(got, []string{ids[3], ids[2]}) {
		t.Errorf("first page of 2: %v", got)
	}
	if got := list(client.ListActivitiesRequest{PaginationOptions: &client.Pagination{Limit: "2", After: ids[2]}}); !slices.Equal(got, []string{ids[1], ids[0]}) {
		t.Errorf("page after %s: %v", ids[2], got)
	}
	if got := list(client.ListActivitiesRequest{FilterByStatus: []string{client.StatusFailed}}); len(got) != 0 {
		t.Errorf("FAILED filter: %v", got)
	}
	if got := list(client.ListActivitiesRequest{FilterByType: []string{renameType}, FilterByStatus: []string{client.StatusCompleted}}); len(got) != 4 {
		t.Errorf("type+status filter: %v", got)
	}
	if got := list(client.ListActivitiesRequest{FilterByType: []string{"ACTIVITY_TYPE_CREATE_POLICIES"}}); len(got) != 0 {
		t.Errorf("other type: %v", got)
	}
	for _, bad := range []client.ListActivitiesRequest{
		{FilterByStatus: []string{"ACTIVITY_STATUS_DONE"}},
		{FilterByType: []string{"create_policies"}},
		{PaginationOptions: &client.Pagination{Limit: "0"}},
		{PaginationOptions: &client.Pagination{Limit: "101"}},
	} {
		if _, err := e.client.ListActivities(t.Context(), bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if _, err := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{PaginationOptions: &client.Pagination{After: "nope"}}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown cursor: %v", err)
	}
}
