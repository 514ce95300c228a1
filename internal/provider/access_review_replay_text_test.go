package provider

import (
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/replay"
)

// The replay's words: counts, reasons, each move with its first
// activities and what they share, and the stop at max_activities.
func TestReplayText(t *testing.T) {
	rh := &replayHistory{days: 30, most: 20000, end: client.RecentEnd{Reason: client.EndCutoff}}
	res := replay.Result{Replayed: 8412, NotRebuilt: map[string]int{replay.SkipRoot: 2}}
	for i := range 5 {
		res.Moved = append(res.Moved, replay.Moved{ActivityID: "act-" + string(rune('a'+i)), KeyID: "key-hot",
			Before: client.OutcomeAllow, After: client.OutcomeRequiresConsensus})
	}
	res.Moved = append(res.Moved, replay.Moved{ActivityID: "act-z", KeyID: "key-cold", Before: client.OutcomeRequiresConsensus, After: client.OutcomeAllow})
	got := replayText(rh, res)
	for _, want := range []string{
		"Replayed 8,412 activities of the last 30 days (2 not rebuilt: 2 " + replay.SkipRoot + "): 5 that were allowed would now need " +
			"consensus; 1 that needed consensus would now be allowed.",
		"\n  - OUTCOME_ALLOW -> OUTCOME_REQUIRES_CONSENSUS: act-a, act-b, act-c and 2 more; all with key key-hot",
		"\n  - OUTCOME_REQUIRES_CONSENSUS -> OUTCOME_ALLOW: act-z; key key-cold",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("replay text\n%s\nlacks\n%s", got, want)
		}
	}
	rh.end.Reason = client.EndMax
	if got := replayText(rh, replay.Result{Replayed: 20000}); got != "Replayed 20,000 activities of the last 30 days, stopping at "+
		"max_activities = 20,000 (older activities were not read): none would be decided otherwise." {
		t.Errorf("at max: %s", got)
	}
}
