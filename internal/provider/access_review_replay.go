package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/replay"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// The replay (provider block `replay`) says under each change's access
// report what the change would have done to the organization's recent
// activities. The history is read once per command, at the first change
// reviewed, and every change is replayed on it: each activity is decided
// with the policies the report compares for its type (review.Org.Sets),
// which move it exactly where the whole organization's would. The apply,
// where Terraform plans each changed policy again, is a command of its
// own and reads the history once more, within the same limits. Only
// counts, activity ids and types, and key ids reach the plan: nothing
// else of an activity is kept, logged or stored.

// replayExamples is how many activity ids a line of the replay names.
const replayExamples = 3

// ethereumFormat is the address format of an Ethereum address.
const ethereumFormat = "ADDRESS_FORMAT_ETHEREUM"

// replayHistory is the command's history, read once.
type replayHistory struct {
	once sync.Once
	h    *replay.History
	end  client.RecentEnd
	days int
	most int
	err  error // the read failed: the replay is not made
}

// history is the command's history, read at the first call.
func (a *accessReview) history(ctx context.Context) *replayHistory {
	a.replay.once.Do(func() {
		rh := &a.replay
		rh.days, rh.most = a.pd.replay.days, a.pd.replay.most
		org, err := replayOrg(ctx, a.pd)
		if err != nil {
			rh.err = err
			return
		}
		rh.h, rh.end, rh.err = readHistory(ctx, a.pd, org, rh.days, rh.most)
	})
	return &a.replay
}

// readHistory reads the organization's activities of the last days, at
// most most of them, and rebuilds them page by page.
func readHistory(ctx context.Context, pd *providerData, org *replay.Org, days, most int) (*replay.History, client.RecentEnd, error) {
	h := replay.NewHistory(org)
	since := time.Now().Add(-time.Duration(days) * 24 * time.Hour)
	end, err := pd.client.RecentActivities(ctx, since, most, func(page []client.Activity) error {
		h.Add(page)
		return nil
	})
	return h, end, err
}

// replayOrg is what rebuilding reads beside the activities: today's keys
// (the command's one list_private_keys, shared with the tag resources)
// and the root users and quorum (the command's one
// get_organization_configs).
func replayOrg(ctx context.Context, pd *providerData) (*replay.Org, error) {
	keys, err := percommand.List(ctx, pd.lists, privateKeysListKey, func(ctx context.Context) (*client.ListPrivateKeysResponse, error) {
		return pd.client.ListPrivateKeys(ctx, client.ListPrivateKeysRequest{})
	})
	if err != nil {
		return nil, fmt.Errorf("the private keys could not be listed: %w", err)
	}
	q, err := pd.RootQuorum(ctx)
	if err != nil || q == nil {
		return nil, fmt.Errorf("the root quorum could not be read: %v", err)
	}
	org := &replay.Org{RootUserIDs: q.UserIDs, RootQuorum: q.Threshold}
	for _, k := range keys.PrivateKeys {
		rk := replay.Key{ID: k.PrivateKeyID, Name: k.PrivateKeyName, Tags: k.PrivateKeyTags}
		for _, ad := range k.Addresses {
			rk.Addresses = append(rk.Addresses, ad.Address)
			if ad.Format == ethereumFormat && rk.Ethereum == "" {
				rk.Ethereum = ad.Address
			}
		}
		org.Keys = append(org.Keys, rk)
	}
	return org, nil
}

// replayed is the replay of c, in words, for its access report, and its
// result (nil where none was made); "" when the replay is off.
func (a *accessReview) replayed(ctx context.Context, org *review.Org, c review.Change, rows []review.Row) (string, *replay.Result) {
	if a.pd.replay == nil {
		return "", nil
	}
	rh := a.history(ctx)
	if rh.err != nil {
		return "Replay not made: " + rh.err.Error() + ".", nil
	}
	res := rh.h.Replay(replay.ForChange(org, c))
	return replayText(rh, res, rows), &res
}

// unused is the finding of an updated allow that no replayed activity
// used (its own outcome allow or consensus): a candidate to remove. A
// created allow is new, and a deny that matches nothing is a guardrail
// doing its job: neither is named.
func (a *accessReview) unused(c review.Change, res *replay.Result) string {
	if res == nil || c.Before == nil || c.After == nil || c.After.Effect != client.EffectAllow || res.Used[c.After.ID] > 0 {
		return ""
	}
	return fmt.Sprintf("Unused for %d days:\nNo activity of the last %d days that the replay rebuilt (%s) was allowed or brought "+
		"to consensus by this policy as planned. Access no one used in %d days is a candidate to remove.", a.replay.days, a.replay.days,
		countOf(res.Replayed, "activity", "activities"), a.replay.days)
}

// replayText says a replay: how many activities, which were not rebuilt
// and why, and the moves by verdict pair; then each group of moved
// activities, by the report's row whose region holds them (rows), with
// its first activities and what they share.
func replayText(rh *replayHistory, res replay.Result, rows []review.Row) string {
	var t strings.Builder
	fmt.Fprintf(&t, "Replayed %s of the last %d days", countOf(res.Replayed, "activity", "activities"), rh.days)
	var notes []string
	if res.TodaysTags > 0 {
		notes = append(notes, symbolic.Thousands(res.TodaysTags)+" rebuilt with their key's tags as they are today")
	}
	if n := sumCounts(res.NotRebuilt); n > 0 {
		var why []string
		for _, reason := range slices.Sorted(maps.Keys(res.NotRebuilt)) {
			why = append(why, fmt.Sprintf("%s %s", symbolic.Thousands(res.NotRebuilt[reason]), reason))
		}
		notes = append(notes, fmt.Sprintf("%s not rebuilt: %s", symbolic.Thousands(n), strings.Join(why, "; ")))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&t, " (%s)", strings.Join(notes, "; "))
	}
	if rh.end.Reason == client.EndMax {
		fmt.Fprintf(&t, ", stopping at max_activities = %s (older activities were not read)", symbolic.Thousands(rh.most))
	}
	pairs, order := groupMoves(res.Moved)
	if len(order) == 0 {
		t.WriteString(": none would be decided otherwise.")
		return t.String()
	}
	var parts []string
	for _, pair := range order {
		parts = append(parts, fmt.Sprintf("%s that %s would now %s", symbolic.Thousands(len(pairs[pair])), wasWords[pair[0]], nowWords[pair[1]]))
	}
	t.WriteString(": " + strings.Join(parts, "; ") + ".")
	for _, g := range groupByRegion(res.Moved, rows) {
		fmt.Fprintf(&t, "\n  - %s -> %s", g.pair[0], g.pair[1])
		if g.region != "" {
			t.WriteString(", " + g.region)
		}
		var ids []string
		for _, m := range g.moved[:min(replayExamples, len(g.moved))] {
			ids = append(ids, m.ActivityID)
		}
		fmt.Fprintf(&t, ":\n      %s: %s", countOf(len(g.moved), "activity", "activities"), strings.Join(ids, ", "))
		if len(g.moved) > replayExamples {
			fmt.Fprintf(&t, " and %s more", symbolic.Thousands(len(g.moved)-replayExamples))
		}
		if common := inCommon(g.moved); common != "" {
			t.WriteString("; " + common)
		}
	}
	return t.String()
}

// regionGroup is the moved activities of one row's region, or of one
// verdict pair outside every row shown (region "").
type regionGroup struct {
	pair   [2]string
	region string
	moved  []replay.Moved
}

// groupByRegion places each moved activity in the first proved row of its
// verdicts and type whose region holds it (the report keeps some regions,
// so one may hold none: it is grouped by its verdicts alone), the groups
// in the order of their first activity.
func groupByRegion(ms []replay.Moved, rows []review.Row) []regionGroup {
	var out []regionGroup
	at := map[string]int{}
	for _, m := range ms {
		var e *policyset.Evaluator
		key, region := m.Before+"\x00"+m.After, ""
		for i, r := range rows {
			if !r.Proved || r.Before != m.Before || r.After != m.After || !slices.Contains(r.Types, m.Type) || m.Request == nil {
				continue
			}
			if e == nil {
				e = policyset.NewEvaluator(*m.Request)
			}
			if symbolic.InRegion(r.Atoms, e) {
				key, region = fmt.Sprint(key, "\x00", i), r.Region
				break
			}
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, regionGroup{pair: [2]string{m.Before, m.After}, region: region})
		}
		out[i].moved = append(out[i].moved, m)
	}
	return out
}

// wasWords and nowWords say a verdict, before and after.
var (
	wasWords = map[string]string{client.OutcomeAllow: "were allowed", client.OutcomeRequiresConsensus: "needed consensus",
		client.OutcomeDenyExplicit: "were denied", client.OutcomeDenyImplicit: "no policy allowed"}
	nowWords = map[string]string{client.OutcomeAllow: "be allowed", client.OutcomeRequiresConsensus: "need consensus",
		client.OutcomeDenyExplicit: "be denied", client.OutcomeDenyImplicit: "be allowed by no policy"}
)

// groupMoves groups moves by verdict pair, the pairs in the order of
// their first move (newest first).
func groupMoves(ms []replay.Moved) (map[[2]string][]replay.Moved, [][2]string) {
	groups := map[[2]string][]replay.Moved{}
	var order [][2]string
	for _, m := range ms {
		pair := [2]string{m.Before, m.After}
		if _, seen := groups[pair]; !seen {
			order = append(order, pair)
		}
		groups[pair] = append(groups[pair], m)
	}
	return groups, order
}

// inCommon says what a group's activities share: one type (when the
// change moves several), one key.
func inCommon(ms []replay.Moved) string {
	var said []string
	if key := ms[0].KeyID; key != "" && !slices.ContainsFunc(ms, func(m replay.Moved) bool { return m.KeyID != key }) {
		if len(ms) == 1 {
			said = append(said, "key "+key)
		} else {
			said = append(said, "all with key "+key)
		}
	}
	return strings.Join(said, ", ")
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return symbolic.Thousands(n) + " " + many
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
