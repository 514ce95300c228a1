package provider

import (
	"math/big"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/replay"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// The replay's words: counts, reasons, each group of moves under the
// report's region that holds it (or its verdicts alone) with its first
// activities and what they share, and the stop at max_activities.
func TestReplayText(t *testing.T) {
	typ := client.OpSignTransaction.Type
	limit := func(n string) []policyset.Policy {
		return []policyset.Policy{{ID: "p", Name: "limit", Effect: client.EffectAllow, Condition: "activity.type == '" + typ + "' && eth.tx.value < " + n}}
	}
	rows := review.Compare(limit("10"), limit("7"), nil).Rows
	if len(rows) != 1 || rows[0].Region == "" {
		t.Fatalf("the report's rows: %+v", rows)
	}
	transfer := func(value int64) *policyset.Request {
		req := policyset.Request{Type: typ, Params: map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}}
		if err := req.SetKeyword("eth.tx", map[string]any{"value": big.NewInt(value)}); err != nil {
			t.Fatal(err)
		}
		return &req
	}
	rh := &replayHistory{days: 30, most: 20000, end: client.RecentEnd{Reason: client.EndCutoff}}
	res := replay.Result{Replayed: 8412, TodaysTags: 8000, NotRebuilt: map[string]int{replay.SkipRoot: 2}}
	for i := range 5 {
		res.Moved = append(res.Moved, replay.Moved{ActivityID: "act-" + string(rune('a'+i)), Type: typ, KeyID: "key-hot",
			Before: client.OutcomeAllow, After: client.OutcomeDenyImplicit, Request: transfer(8)})
	}
	// In no row's region: the report keeps some regions only.
	res.Moved = append(res.Moved, replay.Moved{ActivityID: "act-y", Type: typ, KeyID: "key-cold", Before: client.OutcomeAllow,
		After: client.OutcomeDenyImplicit, Request: transfer(1)})
	res.Moved = append(res.Moved, replay.Moved{ActivityID: "act-z", Type: typ, KeyID: "key-cold", Before: client.OutcomeRequiresConsensus,
		After: client.OutcomeAllow, Request: transfer(1)})
	got := replayText(rh, res, rows)
	for _, want := range []string{
		"Replayed 8,412 activities of the last 30 days (8,000 rebuilt with their key's tags as they are today; 2 not rebuilt: 2 " +
			replay.SkipRoot + "): 6 that were allowed would now be " +
			"allowed by no policy; 1 that needed consensus would now be allowed.",
		"\n  - OUTCOME_ALLOW -> OUTCOME_DENY_IMPLICIT, " + rows[0].Region + ":\n      5 activities: act-a, act-b, act-c and 2 more; all with key key-hot",
		"\n  - OUTCOME_ALLOW -> OUTCOME_DENY_IMPLICIT:\n      1 activity: act-y; key key-cold",
		"\n  - OUTCOME_REQUIRES_CONSENSUS -> OUTCOME_ALLOW:\n      1 activity: act-z; key key-cold",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("replay text\n%s\nlacks\n%s", got, want)
		}
	}
	rh.end.Reason = client.EndMax
	if got := replayText(rh, replay.Result{Replayed: 20000}, nil); got != "Replayed 20,000 activities of the last 30 days, stopping at "+
		"max_activities = 20,000 (older activities were not read): none would be decided otherwise." {
		t.Errorf("at max: %s", got)
	}
}
