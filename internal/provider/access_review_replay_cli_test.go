package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
)

// The replay's acceptance tests: an organization with four policies over
// the emulator's history actors, a month of activities generated through
// the emulator's submit path, and the real CLI planning changes with
// `replay` on. Each figure the plan gives is computed apart: the test
// lists the activities with list_activities (the official shapes), writes
// each as a policy_decision request of its own making, and has
// policy_decision decide it over the policies before and after.

// replayDays is the replay's window in these tests, and the history's.
const replayDays = 30

// replayWorld is the organization, its history and a CLI directory that
// manages its policies.
type replayWorld struct {
	t       *testing.T
	e       *accEmulator
	cli     *tfCLI
	actors  emulator.HistoryActors
	managed map[string]reviewPolicy
	acts    []client.Activity // newest first
	quorum  *client.Quorum    // the root users and their threshold
}

const oneETH = "1000000000000000000"

// newReplayWorld applies the policies (without the replay), then
// generates the history they decide.
func newReplayWorld(t *testing.T) *replayWorld {
	t.Helper()
	e := newAccEmulator(t)
	// A day less than the replay's window, which starts at the plan: every
	// activity is in it.
	opts := emulator.HistoryOptions{Days: replayDays - 1, PerDay: 8, Seed: 1, RootKeys: []*client.APIKey{e.key}}
	actors, err := e.srv.EnsureHistoryActors(opts)
	if err != nil {
		t.Fatal(err)
	}
	tag := func(name string) string { return actors.UserTags[name] }
	signTx := client.OpSignTransaction.Type
	w := &replayWorld{t: t, e: e, cli: newTFCLI(t, e), actors: actors, managed: map[string]reviewPolicy{
		"bots": {"bots send up to 2 ETH alone", client.EffectAllow, fmt.Sprintf("activity.type == '%s' && eth.tx.value <= 2%s", signTx, oneETH[1:]),
			fmt.Sprintf("approvers.any(u, u.tags.contains('%s'))", tag("bot"))},
		"officers": {"two officers send", client.EffectAllow, "activity.type == '" + signTx + "'",
			fmt.Sprintf("approvers.filter(u, u.tags.contains('%s')).count() >= 2", tag("officer"))},
		"over_limit": {"nothing over 100 ETH", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.value > 100" + oneETH[1:], ""},
		"payloads": {"finance signs payloads", client.EffectAllow, "activity.type == '" + client.OpSignRawPayload.Type + "'",
			fmt.Sprintf("approvers.any(u, u.tags.contains('%s'))", tag("finance"))},
	}}
	w.cli.write(reviewResources(w.managed))
	w.cli.mustRun(0, "apply", "-auto-approve")
	sum, err := e.srv.GenerateHistory(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	w.acts = w.listActivities()
	configs, err := e.client.GetOrganizationConfigs(t.Context(), client.GetOrganizationConfigsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	w.quorum = configs.Configs.Quorum
	return w
}

// listActivities are the organization's activities, newest first, paged
// by hand through list_activities.
func (w *replayWorld) listActivities() []client.Activity {
	w.t.Helper()
	var out []client.Activity
	for {
		page := &client.Pagination{Limit: "100"}
		if len(out) > 0 {
			page.After = out[len(out)-1].ID
		}
		resp, err := w.e.client.ListActivities(w.t.Context(), client.ListActivitiesRequest{PaginationOptions: page})
		if err != nil {
			w.t.Fatal(err)
		}
		out = append(out, resp.Activities...)
		if len(resp.Activities) < 100 {
			return out
		}
	}
}

// requested are the organization's activities the plan can rebuild: all
// but the root user's (the policies' creation among them), which root
// counts.
func (w *replayWorld) requested() (acts []client.Activity, root int) {
	for _, a := range w.acts {
		if len(a.Votes) == 0 || a.Votes[0].UserID == "user-root" {
			root++
			continue
		}
		acts = append(acts, a)
	}
	return acts, root
}

// requestHCL is the test's own reading of an activity as a policy_decision
// request: its type, its params by their wire names, its approvers from
// the approving votes with their recorded tags, the root quorum, its key
// with today's tags,
// and eth.tx from the transaction (decoded by the payload package, which
// policy_decision's users share with the emulator).
func (w *replayWorld) requestHCL(a client.Activity) string {
	w.t.Helper()
	// A root user's approval counts toward the root quorum, which allows
	// whatever the policies say.
	req := map[string]any{"type": a.Type, "root_quorum": map[string]any{"user_ids": w.quorum.UserIDs, "threshold": w.quorum.Threshold}}
	var approvers []any
	for _, v := range a.Votes {
		if v.Selection == client.VoteApproved {
			approvers = append(approvers, map[string]any{"id": v.UserID, "tags": append([]string{}, v.User.UserTags...)})
		}
	}
	req["approvers"] = approvers
	var intent map[string]any
	for _, raw := range a.Intent {
		if err := json.Unmarshal(raw, &intent); err != nil {
			w.t.Fatal(err)
		}
	}
	switch a.Type {
	case client.OpSignTransaction.Type, client.OpSignRawPayload.Type:
		if a.Type == client.OpSignTransaction.Type {
			req["params"] = map[string]any{"type": intent["type"]}
		} else {
			req["params"] = map[string]any{"encoding": intent["encoding"], "hash_function": intent["hashFunction"]}
		}
		signWith, _ := intent["signWith"].(string)
		for _, k := range w.actors.PrivateKeys {
			if k.PrivateKeyID == signWith || strings.EqualFold(k.Address, signWith) {
				req["private_key"] = map[string]any{"id": k.PrivateKeyID, "tags": k.PrivateKeyTags}
				if a.Type == client.OpSignTransaction.Type {
					tx, err := payload.DecodeEthTx(fmt.Sprint(intent["unsignedTransaction"]))
					if err != nil {
						w.t.Fatal(err)
					}
					kw := tx.Keyword(k.Address)
					for f, v := range kw {
						if n, ok := v.(*big.Int); ok {
							kw[f] = n.String()
						}
					}
					req["eth"] = map[string]any{"tx": kw}
				}
			}
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b) // a JSON object is an HCL object constructor
}

// decided is policy_decision's outcome of each activity over the managed
// policies before and after: one pair per activity.
func (w *replayWorld) decided(acts []client.Activity, after map[string]reviewPolicy) [][2]string {
	w.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "locals {\n  before = %s\n  after = %s\n  requests = [\n", replaySetHCL(w.managed), replaySetHCL(after))
	for _, a := range acts {
		b.WriteString("    " + w.requestHCL(a) + ",\n")
	}
	b.WriteString(`  ]
}

output "decided" {
  value = [for r in local.requests : [provider::custody::policy_decision(local.before, r).outcome, provider::custody::policy_decision(local.after, r).outcome]]
}
`)
	c := newTFCLI(w.t, w.e)
	c.write(b.String())
	c.mustRun(0, "apply", "-auto-approve")
	var out [][2]string
	if err := json.Unmarshal([]byte(c.mustRun(0, "output", "-json", "decided")), &out); err != nil {
		w.t.Fatal(err)
	}
	return out
}

// replayLine is what a plan's replay says.
type replayLine struct {
	replayed, notRebuilt, root int
	todaysTags                 int
	moves                      map[[2]string]int
	named                      map[[2]string][]string // the ids the groups name
	inRegion                   int                    // the moves grouped under a row's region
}

var (
	replayedRE  = regexp.MustCompile(`Replayed ([\d,]+) (?:activity|activities) of the last (\d+) days(?: \((?:([\d,]+) rebuilt with their key's tags as they are today)?(?:; )?(?:([\d,]+) not rebuilt: (.*))?\))?[,:]`)
	rootRE      = regexp.MustCompile(`([\d,]+) requested by a root user`)
	reportRowRE = regexp.MustCompile(`(?m)^  ACTIVITY_TYPE_[\w, ]+: (OUTCOME_\w+) -> (OUTCOME_\w+)$`)
	moveRE      = regexp.MustCompile(`(?m)^  - (OUTCOME_\w+) -> (OUTCOME_\w+)(, .*)?:\n      ([\d,]+) (?:activity|activities): ([^;\n]*?)(?: and [\d,]+ more)?(?:;.*)?$`)
)

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// parseReplay reads the replay out of an Access change warning.
func parseReplay(t *testing.T, detail string) replayLine {
	t.Helper()
	m := replayedRE.FindStringSubmatch(detail)
	if m == nil {
		t.Fatalf("no replay in the warning:\n%s", detail)
	}
	r := replayLine{replayed: atoi(t, m[1]), moves: map[[2]string]int{}, named: map[[2]string][]string{}}
	if m[2] != strconv.Itoa(replayDays) {
		t.Errorf("replayed %s days, want %d", m[2], replayDays)
	}
	if m[3] != "" {
		r.todaysTags = atoi(t, m[3])
	}
	if m[4] != "" {
		r.notRebuilt = atoi(t, m[4])
		if rm := rootRE.FindStringSubmatch(m[5]); rm != nil {
			r.root = atoi(t, rm[1])
		}
	}
	for _, mv := range moveRE.FindAllStringSubmatch(detail, -1) {
		pair := [2]string{mv[1], mv[2]}
		n := atoi(t, mv[4])
		r.moves[pair] += n
		r.named[pair] = append(r.named[pair], strings.Split(mv[5], ", ")...)
		if mv[3] != "" {
			r.inRegion += n
		}
	}
	return r
}

// planReplay plans the managed policies with after in place of res (nil:
// as they are) and the provider block, and returns the diagnostics.
func (w *replayWorld) plan(provider string, after map[string]reviewPolicy) []planDiagnostic {
	w.t.Helper()
	w.cli.write(provider + reviewResources(after))
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode", "-json")
	if code != 2 {
		w.t.Fatalf("plan exited %d, want 2 (changes): %s", code, out)
	}
	return planDiagnostics(out)
}

const replayOn = `
provider "custody" {
  replay = { days = 30 }
}
`

// checkReplay plans after with the replay on and holds the one Access
// change warning's replay, on address, to the figures policy_decision
// gives; it returns the diagnostics and the expected moves.
func (w *replayWorld) checkReplay(after map[string]reviewPolicy, address string) ([]planDiagnostic, map[[2]string]int) {
	w.t.Helper()
	diags := w.plan(replayOn, after)
	changes := reviewDiags(diags, "Access change: ")
	if len(changes) != 1 || changes[0].Address != address {
		w.t.Fatalf("want one Access change warning, on %q; got %+v", address, changes)
	}
	w.t.Logf("%s:\n%s", changes[0].Summary, changes[0].Detail)
	got := parseReplay(w.t, changes[0].Detail)

	acts, root := w.requested()
	want := map[[2]string]int{}
	moved := map[[2]string][]string{}
	for i, d := range w.decided(acts, after) {
		if d[0] != d[1] {
			want[d]++
			moved[d] = append(moved[d], acts[i].ID)
		}
	}
	signed := 0
	for _, a := range acts {
		if a.Type == client.OpSignTransaction.Type || a.Type == client.OpSignRawPayload.Type {
			signed++
		}
	}
	if got.todaysTags != signed {
		w.t.Errorf("%d rebuilt with today's key tags; %d signed with a key", got.todaysTags, signed)
	}
	if got.replayed != len(acts) || got.root != root || got.notRebuilt != root {
		w.t.Errorf("replayed %d, not rebuilt %d (%d a root user's); policy_decision's count: %d rebuilt, %d a root user's",
			got.replayed, got.notRebuilt, got.root, len(acts), root)
	}
	if !maps.Equal(got.moves, want) {
		w.t.Errorf("the replay moves %v; policy_decision moves %v", got.moves, want)
	}
	for pair, ids := range got.named {
		for _, id := range ids {
			if !slices.Contains(moved[pair], id) {
				w.t.Errorf("the replay names %s under %v, which policy_decision does not move so", id, pair)
			}
		}
	}
	if got.inRegion == 0 {
		w.t.Errorf("no moved activity is grouped under a region of the report")
	}
	// A replayed move the report has no row of is a defect: the report
	// keeps some regions, so its verdict pairs are what is matched.
	rows := map[[2]string]bool{}
	for _, m := range reportRowRE.FindAllStringSubmatch(changes[0].Detail, -1) {
		rows[[2]string{m[1], m[2]}] = true
	}
	if len(rows) == 0 {
		w.t.Errorf("no row of the report read")
	}
	for pair := range want {
		if !rows[pair] {
			w.t.Errorf("activities move %v, a verdict pair the report has no row of", pair)
		}
	}
	return diags, want
}

// with is w's managed policies with res replaced.
func (w *replayWorld) with(res string, p reviewPolicy) map[string]reviewPolicy {
	out := maps.Clone(w.managed)
	out[res] = p
	return out
}

// A narrowing change (the bots' limit from 2 ETH to 0.5 ETH) names the
// transfers it would have blocked; a widening one (to 50 ETH) those it
// would have let through, beside root users' activities counted as not
// rebuilt. Both are policy_decision's figures over the same activities.
func TestReplayCLI_narrowingAndWidening(t *testing.T) {
	t.Parallel()
	w := newReplayWorld(t)
	bots := w.managed["bots"]
	narrowed, widened := bots, bots
	narrowed.condition = strings.Replace(bots.condition, "<= 2"+oneETH[1:], "<= 5"+oneETH[2:], 1)
	widened.condition = strings.Replace(bots.condition, "<= 2"+oneETH[1:], "<= 50"+oneETH[1:], 1)

	_, moves := w.checkReplay(w.with("bots", narrowed), "custody_policy.bots")
	if moves[[2]string{client.OutcomeAllow, client.OutcomeRequiresConsensus}] == 0 {
		t.Errorf("the narrowing moves %v: the history has no bot transfer between 0.5 and 2 ETH to replay", moves)
	}
	_, moves = w.checkReplay(w.with("bots", widened), "custody_policy.bots")
	if moves[[2]string{client.OutcomeRequiresConsensus, client.OutcomeAllow}]+moves[[2]string{client.OutcomeDenyImplicit, client.OutcomeAllow}] == 0 {
		t.Errorf("the widening moves %v: the history has no bot transfer between 2 and 50 ETH to replay", moves)
	}
}

// An allow that no replayed activity would use as planned is a finding
// with the days; the same change replayed by custody_policy_replay gives
// the plan's figures.
func TestReplayCLI_unusedAllowAndDataSource(t *testing.T) {
	t.Parallel()
	w := newReplayWorld(t)
	payloads := w.managed["payloads"]
	unused := payloads
	unused.condition += " && activity.params.encoding == 'PAYLOAD_ENCODING_TEXT_UTF8'"
	after := w.with("payloads", unused)
	diags, moves := w.checkReplay(after, "custody_policy.payloads")
	findings := reviewDiags(diags, "Policy finding: ")
	if len(findings) != 1 || !strings.Contains(findings[0].Detail, fmt.Sprintf("Unused for %d days:", replayDays)) ||
		findings[0].Address != "custody_policy.payloads" {
		t.Fatalf("want the unused finding on custody_policy.payloads; got %+v", findings)
	}
	// custody_policy_replay over the same whole lists.
	c := newTFCLI(t, w.e)
	c.write(fmt.Sprintf(`
data "custody_policy_replay" "this" {
  before = %s
  after  = %s
  days   = %d
}

output "replay" {
  value = data.custody_policy_replay.this
}
`, replaySetHCL(w.managed), replaySetHCL(after), replayDays))
	c.mustRun(0, "apply", "-auto-approve")
	var got struct {
		Replayed   int `json:"replayed"`
		NotRebuilt int `json:"not_rebuilt"`
		Moved      []struct {
			ActivityID string `json:"activity_id"`
			Before     string `json:"before"`
			After      string `json:"after"`
		} `json:"moved"`
		MovedMore int `json:"moved_more"`
	}
	if err := json.Unmarshal([]byte(c.mustRun(0, "output", "-json", "replay")), &got); err != nil {
		t.Fatal(err)
	}
	acts, root := w.requested()
	counted := map[[2]string]int{}
	for _, m := range got.Moved {
		counted[[2]string{m.Before, m.After}]++
	}
	if got.Replayed != len(acts) || got.NotRebuilt != root || got.MovedMore != 0 || !maps.Equal(counted, moves) {
		t.Errorf("custody_policy_replay: replayed %d, not rebuilt %d, moved %v (+%d); the plan's: %d, %d, %v",
			got.Replayed, got.NotRebuilt, counted, got.MovedMore, len(acts), root, moves)
	}
}

// replaySetHCL is a set of managed policies as a list for the data source.
func replaySetHCL(m map[string]reviewPolicy) string {
	var b strings.Builder
	b.WriteString("[\n")
	for _, res := range slices.Sorted(maps.Keys(m)) {
		p := m[res]
		fmt.Fprintf(&b, "    { name = %q, effect = %q, condition = %s, consensus = %s },\n", p.name, p.effect, hclOptional(p.condition),
			hclOptional(p.consensus))
	}
	return b.String() + "  ]"
}

// The replay is off by default: a plan that changes a policy reads no
// activity, and says nothing of a replay.
func TestReplayCLI_offByDefault(t *testing.T) {
	t.Parallel()
	w := newReplayWorld(t)
	bots := w.managed["bots"]
	bots.condition = strings.Replace(bots.condition, "<= 2"+oneETH[1:], "<= 3"+oneETH[1:], 1)
	before := w.e.srv.RequestCounts()["query/list_activities"]
	diags := w.plan("", w.with("bots", bots))
	if n := w.e.srv.RequestCounts()["query/list_activities"] - before; n != 0 {
		t.Errorf("the plan without replay listed activities %d times", n)
	}
	changes := reviewDiags(diags, "Access change: ")
	if len(changes) != 1 || strings.Contains(changes[0].Detail, "Replayed") {
		t.Errorf("want one Access change warning without a replay; got %+v", changes)
	}
}
