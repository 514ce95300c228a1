package emulator_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator/emulatortest"
)

// historyOrg is an emulator with a fixed clock, the history's actors and
// policies that give each kind of decision, and the actors as it holds
// them.
type historyOrg struct {
	*emulatortest.Emulator
	actors emulator.HistoryActors
	now    time.Time
}

func newHistoryOrg(t *testing.T, now time.Time) *historyOrg {
	t.Helper()
	e := emulatortest.Start(t, "org-history", "History Org", func(o *emulator.Options) {
		o.Now = func() time.Time { return now }
		o.LivenessWindow = 24 * time.Hour // the test's own submits use the real clock
	})
	actors, err := e.Srv.EnsureHistoryActors(emulator.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const signTx, signRaw = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
	has := func(tag string) string { return fmt.Sprintf("u.tags.contains('%s')", actors.UserTags[tag]) }
	_, err = e.Client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "bots pay up to 2 ETH", Effect: client.EffectAllow, Condition: signTx + " && eth.tx.value <= 2000000000000000000",
			Consensus: "approvers.any(u, " + has("bot") + ")"},
		{PolicyName: "two officers sign any transfer", Effect: client.EffectAllow, Condition: signTx,
			Consensus: "approvers.filter(u, " + has("officer") + ").count() >= 2"},
		{PolicyName: "nothing over 100 ETH", Effect: client.EffectDeny, Condition: signTx + " && eth.tx.value > 100000000000000000000"},
		{PolicyName: "finance signs payloads", Effect: client.EffectAllow, Condition: signRaw, Consensus: "approvers.any(u, " + has("finance") + ")"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &historyOrg{Emulator: e, actors: actors, now: now}
}

// listAll reads every activity through list_activities, page by page.
func listAll(t *testing.T, c *client.Client) []client.Activity {
	t.Helper()
	var all []client.Activity
	for {
		req := client.ListActivitiesRequest{PaginationOptions: &client.Pagination{Limit: "100"}}
		if len(all) > 0 {
			req.PaginationOptions.After = all[len(all)-1].ID
		}
		page, err := c.ListActivities(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Activities) == 0 {
			return all
		}
		all = append(all, page.Activities...)
	}
}

func createdAt(t *testing.T, a client.Activity) time.Time {
	t.Helper()
	at, err := a.CreatedAt.Time()
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// historyRow is what the same seed must repeat of an activity.
type historyRow struct {
	Type, Status string
	CreatedAt    time.Time
}

// generated are the history's activities in the list (those not made by
// the test's own policy set-up), as rows.
func generated(t *testing.T, list []client.Activity) []historyRow {
	t.Helper()
	var rows []historyRow
	for _, a := range list {
		if a.Type != client.OpCreatePolicies.Type {
			rows = append(rows, historyRow{a.Type, a.Status, createdAt(t, a)})
		}
	}
	return rows
}

func TestGenerateHistory(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	org := newHistoryOrg(t, now)
	sum, err := org.Srv.GenerateHistory(emulator.HistoryOptions{Days: 30, PerDay: 20, Seed: 1, RootKeys: []*client.APIKey{org.Key}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	list := listAll(t, org.Client)
	start := now.Add(-30 * 24 * time.Hour)
	if !sum.From.Equal(start) || !sum.To.Equal(now) {
		t.Errorf("window %s to %s, want %s to %s", sum.From, sum.To, start, now)
	}

	// Newest first, every generated one within the window, spread over
	// its days.
	days := map[string]int{}
	for i, a := range list {
		at := createdAt(t, a)
		if i > 0 && at.After(createdAt(t, list[i-1])) {
			t.Fatalf("activity %d (%s) is newer than the one listed before it", i, at)
		}
		if a.Type == client.OpCreatePolicies.Type {
			continue
		}
		if at.Before(start) || !at.Before(now) {
			t.Fatalf("activity %s at %s is outside the window", a.ID, at)
		}
		if updated, err := a.UpdatedAt.Time(); err != nil || updated.Before(at) || updated.After(now) {
			t.Fatalf("activity %s: updatedAt %s (%v) is not between its creation %s and now", a.ID, updated, err, at)
		}
		days[at.Format(time.DateOnly)]++
	}
	rows := generated(t, list)
	if len(rows) != sum.Activities || len(days) < 29 {
		t.Fatalf("%d activities listed, %d in the summary, over %d days", len(rows), sum.Activities, len(days))
	}
	byStatus := map[string]int{}
	for _, r := range rows {
		byStatus[r.Status]++
	}
	if !maps.Equal(byStatus, sum.ByStatus) {
		t.Errorf("listed statuses %v, summary %v", byStatus, sum.ByStatus)
	}
	weekday, weekend := 0, 0
	for day, n := range days {
		d, _ := time.Parse(time.DateOnly, day)
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			weekend += n
		} else {
			weekday += n
		}
	}
	if weekday < 4*weekend {
		t.Errorf("%d activities on weekdays, %d at weekends: weekdays should be busier", weekday, weekend)
	}

	checkHistoryKinds(t, org, list)
}

// checkHistoryKinds finds each kind of activity a history must hold.
func checkHistoryKinds(t *testing.T, org *historyOrg, list []client.Activity) {
	t.Helper()
	users := map[string]emulator.HistoryUser{}
	for _, u := range org.actors.Users {
		users[u.UserID] = u
	}
	requester := func(a client.Activity) string { return a.Votes[0].UserID }
	kinds := map[string]func(a client.Activity) bool{
		"a transaction a bot signed": func(a client.Activity) bool {
			return a.Type == client.OpSignTransaction.Type && a.Status == client.StatusCompleted && users[requester(a)].Bot
		},
		"a transaction a person signed": func(a client.Activity) bool {
			u, ok := users[requester(a)]
			return a.Type == client.OpSignTransaction.Type && ok && !u.Bot
		},
		"a hex payload": func(a client.Activity) bool { return intentEncoding(t, a) == "PAYLOAD_ENCODING_HEXADECIMAL" },
		"EIP-712 typed data": func(a client.Activity) bool {
			return intentEncoding(t, a) == "PAYLOAD_ENCODING_EIP712" && a.Status == client.StatusCompleted
		},
		"an approval by several users": func(a client.Activity) bool {
			return a.Status == client.StatusCompleted && len(a.Votes) >= 3
		},
		"an implicit denial": func(a client.Activity) bool { return denied(a, "is implicitly denied") },
		"an explicit denial": func(a client.Activity) bool { return denied(a, "is denied by policy") },
		"one pending":        func(a client.Activity) bool { return a.Status == client.StatusConsensusNeeded && len(a.Votes) >= 1 },
		"a rejection": func(a client.Activity) bool {
			return a.Status == client.StatusRejected && a.Votes[len(a.Votes)-1].Selection == client.VoteRejected
		},
		"a wallet activity": func(a client.Activity) bool { return a.Type == client.OpCreatePrivateKeys.Type },
		"a root user's activity": func(a client.Activity) bool {
			return a.Type != client.OpCreatePolicies.Type && requester(a) == "user-root"
		},
		"a root user's approval": func(a client.Activity) bool {
			return len(a.Votes) > 1 && slices.ContainsFunc(a.Votes[1:], func(v client.Vote) bool { return v.UserID == "user-root" })
		},
	}
	found := map[string]int{}
	for _, a := range list {
		for name, is := range kinds {
			if is(a) {
				found[name]++
			}
		}
		// Every vote carries its user as the state holds it: the history's
		// users with their user tags.
		for _, v := range a.Votes {
			if u, ok := users[v.UserID]; ok && (v.User.UserID != u.UserID || v.User.UserName != u.UserName || !slices.Equal(v.User.UserTags, u.UserTags)) {
				t.Fatalf("activity %s: vote by %s carries user %+v, want tags %v", a.ID, u.UserName, v.User, u.UserTags)
			}
		}
	}
	for name := range kinds {
		if found[name] == 0 {
			t.Errorf("no %s in the history", name)
		}
	}
	t.Logf("kinds: %v", found)
}

// denied tells whether a failed for want of permission, with a message
// that says so.
func denied(a client.Activity, says string) bool {
	return a.Status == client.StatusFailed && a.Failure != nil && a.Failure.Code == client.CodePermissionDenied &&
		strings.Contains(a.Failure.Message, says)
}

// intentEncoding is the encoding of a sign_raw_payload activity, "" for
// another type.
func intentEncoding(t *testing.T, a client.Activity) string {
	t.Helper()
	raw, ok := a.Intent[client.OpSignRawPayload.IntentKey]
	if !ok {
		return ""
	}
	var p client.SignRawPayloadParams
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p.Encoding
}

// The same seed on the same state makes the same activities, in the same
// order, at the same moments, with the same outcomes; another seed makes
// others.
func TestGenerateHistorySameSeedSameHistory(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	run := func(seed uint64) []historyRow {
		org := newHistoryOrg(t, now)
		if _, err := org.Srv.GenerateHistory(emulator.HistoryOptions{Days: 7, PerDay: 25, Seed: seed, RootKeys: []*client.APIKey{org.Key}}); err != nil {
			t.Fatal(err)
		}
		return generated(t, listAll(t, org.Client))
	}
	first, second, other := run(7), run(7), run(8)
	if len(first) < 100 || !slices.Equal(first, second) {
		t.Fatalf("seed 7 twice: %d then %d activities, or different ones", len(first), len(second))
	}
	if slices.Equal(first, other) {
		t.Fatal("seeds 7 and 8 made the same history")
	}
}

// A second history on the same state finds its actors again, and its
// activities are listed among the first one's by time; the same one again
// (the same seed and clock) is not made twice. None delivers
// webhooks (their moments are past); deliveries go on afterwards.
func TestGenerateHistoryTwiceOnOneState(t *testing.T) {
	var mu sync.Mutex
	hooks := 0
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		hooks++
		mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	delivered := func() int { mu.Lock(); defer mu.Unlock(); return hooks }
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); delivered() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d webhooks delivered, want %d", delivered(), n)
			}
		}
		time.Sleep(50 * time.Millisecond) // and no more
		if got := delivered(); got != n {
			t.Fatalf("%d webhooks delivered, want %d", got, n)
		}
	}
	org := newHistoryOrg(t, time.Now().UTC().Truncate(time.Second))
	_, err := org.Client.CreateWebhookEndpoint(t.Context(), client.CreateWebhookEndpointParams{URL: receiver.URL, Name: "hooks",
		Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES"}}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(1)

	for _, seed := range []uint64{1, 2} {
		if _, err := org.Srv.GenerateHistory(emulator.HistoryOptions{Days: 3, PerDay: 15, Seed: seed}); err != nil {
			t.Fatal(err)
		}
	}
	// The clock has not moved: seed 1 again asks what it asked, which the
	// emulator takes for resubmissions.
	if sum, err := org.Srv.GenerateHistory(emulator.HistoryOptions{Days: 3, PerDay: 15, Seed: 1}); err != nil || sum.Activities != 0 || sum.Votes != 0 {
		t.Fatalf("seed 1 again: %v, %s", err, sum)
	}
	again, err := org.Srv.EnsureHistoryActors(emulator.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range again.Users {
		if u.UserID != org.actors.Users[i].UserID {
			t.Errorf("user %s is %s after two histories, %s before", u.UserName, u.UserID, org.actors.Users[i].UserID)
		}
	}
	list := listAll(t, org.Client)
	for i := 1; i < len(list); i++ {
		if createdAt(t, list[i]).After(createdAt(t, list[i-1])) {
			t.Fatalf("activity %d is newer than the one listed before it", i)
		}
	}
	if rows := generated(t, list); len(rows) < 60 {
		t.Fatalf("%d activities from two histories", len(rows))
	}

	if _, err := org.Client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "after"}); err != nil {
		t.Fatal(err)
	}
	waitFor(2)
}
