package emulator

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func TestFaultInjection(t *testing.T) {
	rename := func(e *testEmulator) (*client.Submitted[client.UpdateOrganizationNameResult], error) {
		return e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Faulty"})
	}
	t.Run("429 with Retry-After is retried", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{RateLimited: FaultRate{First: 2}, RetryAfterSeconds: 0} })
		raw := e.post(t, "/public/v1/query/whoami", []byte(`{"organizationId":"org-test"}`), e.key)
		wantError(t, raw, 429, "rate limit exceeded")
		if n := e.srv.InjectedFaults()["429"]; n != 1 {
			t.Errorf("InjectedFaults counts %d 429s, want 1", n)
		}
		if _, err := rename(e); err != nil {
			t.Fatalf("after one more 429 the client must succeed: %v", err)
		}
		if n := e.srv.RequestCounts()["submit/update_organization_name"]; n != 2 {
			t.Errorf("%d submits, want 2 (one 429, one success)", n)
		}
	})
	t.Run("503 is retried", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{Unavailable: FaultRate{First: 3}} })
		if _, err := rename(e); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("500 commits nothing and is retried", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{Internal: FaultRate{First: 1}} })
		raw := e.post(t, "/public/v1/submit/update_organization_name", submitBody(renameType, `{"organizationName":"Never"}`), e.key)
		wantError(t, raw, 500, "injected fault: internal error")
		if list, _ := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{}); len(list.Activities) != 0 {
			t.Fatalf("a 500 before the operation left %d activities", len(list.Activities))
		}
		e.srv.SetFaults(Faults{Internal: FaultRate{First: 1}})
		got, err := rename(e)
		if err != nil || got.Result.OrganizationName != "Faulty" {
			t.Fatalf("the client must retry a 500: %+v %v", got, err)
		}
		if n := e.srv.RequestCounts()["submit/update_organization_name"]; n != 3 {
			t.Errorf("%d submits, want 3 (the raw one, a 500, the retry)", n)
		}
	})
	t.Run("commit then drop the connection: no duplicate", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{DropAfterCommit: FaultRate{First: 1}} })
		got, err := rename(e)
		if err != nil || got.Result.OrganizationName != "Faulty" {
			t.Fatalf("%+v %v", got, err)
		}
		list, _ := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{})
		if len(list.Activities) != 1 || list.Activities[0].ID != got.Activity.ID {
			t.Fatalf("want the one committed activity, got %d", len(list.Activities))
		}
		if n := e.srv.InjectedFaults()["drop-after-commit"]; n != 1 {
			t.Errorf("InjectedFaults counts %d drops, want 1", n)
		}
	})
	t.Run("commit then 500: the client's retry gets the same activity", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{InternalAfterCommit: FaultRate{First: 1}} })
		got := createPolicies(t, e.client, client.PolicyParams{PolicyName: "once", Effect: client.EffectAllow})
		list, _ := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{})
		if len(list.Activities) != 1 || list.Activities[0].ID != got.Activity.ID {
			t.Fatalf("want the one committed activity %s, got %d", got.Activity.ID, len(list.Activities))
		}
		if ps := policyIDs(t, e); len(ps) != 1 || ps[0] != got.Result.PolicyIDs[0] {
			t.Fatalf("policies %v, want only %v", ps, got.Result.PolicyIDs)
		}
		if n := e.srv.RequestCounts()["submit/create_policies"]; n != 2 {
			t.Errorf("%d submits, want 2 (the 500, the retry)", n)
		}
	})
	t.Run("commit then drop, and the retry is refused as stale", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) {
			o.Faults = Faults{DropAfterCommit: FaultRate{First: 1}, StaleRetry: FaultRate{First: 1}}
		})
		_, err := rename(e)
		// The client must not take the 400 to its retry for "nothing was
		// done": the first attempt was committed.
		var lost *client.LostAnswerError
		if !errors.As(err, &lost) || !strings.Contains(err.Error(), "outside the liveness window") {
			t.Fatalf("error %v; want a lost answer that quotes the stale refusal", err)
		}
		if n := e.srv.InjectedFaults()["stale-retry"]; n != 1 {
			t.Errorf("InjectedFaults counts %d stale retries, want 1", n)
		}
		list, _ := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{})
		if len(list.Activities) != 1 || list.Activities[0].Status != client.StatusCompleted {
			t.Fatalf("the first attempt's activity must stand, committed: %+v", list.Activities)
		}
		found, err := e.client.FindSubmission(t.Context(), lost.Submission)
		if err != nil || found == nil || found.ID != list.Activities[0].ID {
			t.Fatalf("FindSubmission: %+v, %v; want activity %s", found, err, list.Activities[0].ID)
		}
	})
	t.Run("down, then back up", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{Down: true} })
		c, _ := client.New(client.Config{BaseURL: e.http.URL, OrganizationID: testOrg, APIPublicKey: e.key.PublicKeyHex(), APIPrivateKey: e.key.PrivateKeyHex(), Retries: client.RetryUpTo(2), RetryWaitMin: time.Millisecond})
		if _, err := c.Whoami(t.Context(), whoami()); err == nil {
			t.Fatal("a down service answered")
		}
		e.srv.SetFaults(Faults{})
		if _, err := c.Whoami(t.Context(), whoami()); err != nil {
			t.Fatalf("after recovery: %v", err)
		}
	})
	t.Run("latency", func(t *testing.T) {
		e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{Latency: FaultRate{First: 1}, Delay: 50 * time.Millisecond} })
		start := time.Now()
		if _, err := e.client.Whoami(t.Context(), whoami()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 50*time.Millisecond {
			t.Fatalf("answered in %v despite 50 ms of injected latency", d)
		}
	})
	t.Run("rate is repeatable with a seed", func(t *testing.T) {
		pick := func() string {
			fi := newFaultInjector(Faults{Unavailable: FaultRate{Rate: 0.5}, Seed: 42})
			s := ""
			for i := 0; i < 32; i++ {
				s += fmt.Sprint(fi.before(routeQuery) != nil)
			}
			return s
		}
		first, second := pick(), pick()
		if first != second {
			t.Fatal("same seed, different faults")
		}
	})
}

// A submit answered 500 after its commit is in the state, and the identical
// body sent again is answered with that activity, not a second one.
func TestInternalErrorAfterCommit(t *testing.T) {
	e := newTestEmulator(t, func(o *Options) { o.Faults = Faults{InternalAfterCommit: FaultRate{First: 1}} })
	body := submitBody("ACTIVITY_TYPE_CREATE_POLICIES", `{"policies":[{"policyName":"once","effect":"EFFECT_ALLOW","notes":""}]}`)
	first := e.post(t, "/public/v1/submit/create_policies", body, e.key)
	wantError(t, first, 500, "after the activity was committed")
	list, err := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{})
	if err != nil || len(list.Activities) != 1 || list.Activities[0].Status != client.StatusCompleted {
		t.Fatalf("after the 500 the state holds %+v, %v; want one completed activity", list, err)
	}
	committed := list.Activities[0].ID
	held := policyIDs(t, e)
	if len(held) != 1 {
		t.Fatalf("after the 500 the state holds policies %v, want one", held)
	}

	second := e.post(t, "/public/v1/submit/create_policies", body, e.key)
	if second.Status != 200 {
		t.Fatalf("resubmission: status %d, body %s", second.Status, second.Raw)
	}
	if id := mustJSONAt[string](t, second.Body, "activity", "id"); id != committed {
		t.Fatalf("resubmission answered activity %s, want the committed %s", id, committed)
	}
	if list, _ := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{}); len(list.Activities) != 1 {
		t.Errorf("%d activities after the resubmission, want 1", len(list.Activities))
	}
	if again := policyIDs(t, e); len(again) != 1 || again[0] != held[0] {
		t.Errorf("policies %v after the resubmission, want only %v", again, held)
	}
	if got := e.srv.InjectedFaults(); got["500-after-commit"] != 1 || got["500"] != 0 {
		t.Errorf("InjectedFaults = %v, want one 500-after-commit", got)
	}
}

// Many parallel submits: every one is recorded once, none lost.
func TestParallelSubmits(t *testing.T) {
	e, _ := newPersistentEmulator(t)
	const n = 40
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: fmt.Sprintf("name-%d", i)})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- s.Activity.ID
		}()
	}
	// The same body from many goroutines at once is still one activity.
	body := submitBody(renameType, `{"organizationName":"shared"}`)
	shared := make(chan string, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := e.post(t, "/public/v1/submit/update_organization_name", body, e.key)
			id, err := jsonAt[string](a.Body, "activity", "id")
			if err != nil {
				t.Error(err)
				return
			}
			shared <- id
		}()
	}
	wg.Wait()
	close(ids)
	close(shared)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	first := ""
	for id := range shared {
		if first == "" {
			first = id
		}
		if id != first {
			t.Fatalf("identical parallel submits made activities %s and %s", first, id)
		}
	}
	list, err := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{PaginationOptions: &client.Pagination{Limit: "100"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != n || len(list.Activities) != n+1 {
		t.Fatalf("%d distinct ids from %d submits, %d activities listed; want %d and %d", len(seen), n, len(list.Activities), n, n+1)
	}
}
