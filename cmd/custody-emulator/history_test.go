package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

var historySummary = regexp.MustCompile(`^history: ([0-9]+) activities from \S+ to \S+ \(seed 1\); by type: [^;]+; by status: [^;]+; [0-9]+ later votes\n$`)

// history adds a generated history to a stopped emulator's state file and
// prints one line; the documented start serves it afterwards, fixtures and
// all (the history's users are not taken for other fixtures). As the
// README shows: the actors first, then policies that name their tags,
// then the history, which those policies decide.
func TestHistoryAddsActivitiesToAStateFile(t *testing.T) {
	dir := t.TempDir()
	args := documentedStart(t, dir)
	state := args[slices.Index(args, "-state")+1]
	first := start(t, args, nil)
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}

	history := func(args ...string) (stdout, stderr string, _ error) {
		var out, errOut strings.Builder
		err := runHistory(args, func(string) string { return "" }, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	out, notes, err := history("-state", state, "-actors-only")
	tag := func(name string) string {
		m := regexp.MustCompile(name + `=([0-9a-f-]{36})`).FindStringSubmatch(notes)
		if m == nil {
			t.Fatalf("no tag %s in the notes: %s", name, notes)
		}
		return m[1]
	}
	if err != nil || out != "history: actors only, no activity added\n" ||
		!strings.Contains(notes, "history actors: users payouts-bot, treasury-bot, alice, bob, carol; user tags bot=") {
		t.Fatalf("history -actors-only: %v\n%q\n%s", err, out, notes)
	}
	policies := start(t, args, nil)
	_, err = policies.clientOf(t, "CUSTODY_API_").CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "bots sign", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
			Consensus: "approvers.any(u, u.tags.contains('" + tag("bot") + "'))"},
		{PolicyName: "officers sign", Effect: client.EffectAllow, Condition: "activity.resource == 'PRIVATE_KEY'",
			Consensus: "approvers.filter(u, u.tags.contains('" + tag("officer") + "')).count() >= 2"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_ = policies.stop()

	out, notes, err = history("-state", state, "-days", "5", "-per-day", "12", "-seed", "1")
	m := historySummary.FindStringSubmatch(out)
	if err != nil || m == nil || !strings.Contains(out, "COMPLETED") || strings.Contains(out, "; 0 later votes") {
		t.Fatalf("history: %v\nstdout %q\nstderr %s", err, out, notes)
	}
	made, _ := strconv.Atoi(m[1])

	again := start(t, args, nil)
	root := again.clientOf(t, "CUSTODY_API_")
	who, err := root.Whoami(t.Context(), client.WhoamiRequest{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := root.ListActivities(t.Context(), client.ListActivitiesRequest{PaginationOptions: &client.Pagination{Limit: "100"}})
	if err != nil || len(list.Activities) != made+1 || made < 30 { // and the policies' creation
		t.Fatalf("after the history: %v, %d activities listed, %d made", err, len(list.Activities), made)
	}
	byRoot := 0
	for i, a := range list.Activities {
		if a.Type != client.OpCreatePolicies.Type && a.Votes[0].UserID == who.UserID {
			byRoot++
		}
		// The policies, made before the history but dated after most of
		// it, are listed among its activities by time.
		if at, _ := a.CreatedAt.Time(); i > 0 && at.After(mustTime(t, list.Activities[i-1].CreatedAt)) {
			t.Fatalf("activity %d is newer than the one listed before it", i)
		}
	}
	if byRoot == 0 {
		t.Error("no activity by the root user, whose key is in the env file")
	}
	_ = again.stop()

	// Again on the same state: the actors are found, not made twice.
	if out, notes, err := history("-state", state, "-days", "2", "-per-day", "5"); err != nil || !historySummary.MatchString(out) {
		t.Fatalf("a second history: %v\n%q\n%s", err, out, notes)
	}
	var st struct {
		Users []struct{ UserName string } `json:"users"`
	}
	if err := json.Unmarshal(mustRead(t, state), &st); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, u := range st.Users {
		names[u.UserName]++
	}
	if names["alice"] != 1 || names["payouts-bot"] != 1 || names["alice.treasury"] != 1 {
		t.Errorf("users after two histories: %v", names)
	}
}

func TestHistoryRefusals(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give -state FILE"},
		{[]string{"-state", missing}, "does not exist: start the emulator with -state"},
		{[]string{"-state", missing, "-days", "0"}, "-days 0 and -per-day 40 must be at least 1"},
		{[]string{"-state", missing, "stray"}, "unexpected arguments"},
	} {
		err := runHistory(c.args, func(string) string { return "" }, &strings.Builder{}, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("history %q: %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a refused history made %s: %v", missing, err)
	}
}

func mustTime(t *testing.T, ts client.Timestamp) time.Time {
	t.Helper()
	at, err := ts.Time()
	if err != nil {
		t.Fatal(err)
	}
	return at
}
