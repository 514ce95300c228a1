package symbolic

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestCronSpanDecided: the business-hours cases. A tightening of
// the condition gives only narrowing rows, every one proved; widening the
// window from 8h to 12h is one proved row whose witness signs between
// 17:00 and 21:00 UTC on a weekday.
func TestCronSpanDecided(t *testing.T) {
	cond := "activity.type == '" + diffType + "'"
	hours := policyset.Policy{ID: "b", Name: "business hours", Effect: client.EffectAllow, Condition: cond, Time: "CronSpan('0 9 * * 1-5', '8h', 'UTC')"}
	tight := hours
	tight.Condition += " && eth.tx.value <= 10000000000000000000"
	rs, _, guarded := Regions(diffType, []policyset.Policy{hours}, []policyset.Policy{tight}, []policyset.Policy{hours, tight}, nil)
	if guarded || len(rs) == 0 {
		t.Fatalf("the tightening: guarded %v, %d rows", guarded, len(rs))
	}
	for _, r := range rs {
		if !r.Proved || r.After == client.OutcomeAllow {
			t.Errorf("the tightening gives only proved narrowing rows: %s -> %s (%s)", r.Before, r.After, r.NotProved)
		}
	}
	wide := hours
	wide.Time = "CronSpan('0 9 * * 1-5', '12h', 'UTC')"
	rs, _, _ = Regions(diffType, []policyset.Policy{hours}, []policyset.Policy{wide}, []policyset.Policy{hours, wide}, nil)
	if len(rs) != 1 || !rs[0].Proved || rs[0].Before != client.OutcomeDenyImplicit || rs[0].After != client.OutcomeAllow {
		t.Fatalf("want one proved DENY_IMPLICIT -> ALLOW row, got %+v", rs)
	}
	now := rs[0].Witness.Now.UTC()
	if h := now.Hour(); h < 17 || h >= 21 || now.Weekday() == time.Saturday || now.Weekday() == time.Sunday {
		t.Errorf("the witness should sign between 17:00 and 21:00 UTC on a weekday: %v", now)
	}
}

// The spans and constants TestCronSpanSampled draws from: weekly windows
// in zones with and without daylight saving time, and two constants, one
// near the American change to summer time.
var (
	sampledSpans = []string{
		"CronSpan('0 9 * * 1-5', '8h', 'UTC')",
		"CronSpan('0 10 * * 1-5', '8h', 'UTC')",
		"CronSpan('30 8 * * 1-5', '12h', 'America/New_York')",
		"CronSpan('0 22 * * 0,6', '6h', 'Europe/Berlin')",
		"CronSpan('0 0 * * *', '90m', 'Asia/Kolkata')",
	}
	sampledStamps = []string{"2026-03-08T07:00:00Z", "2026-06-01T00:00:00Z"}
)

func sampledTimeAtom(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return fmt.Sprintf("time.now %s Timestamp('%s')", []string{"<", ">="}[r.IntN(2)], sampledStamps[r.IntN(len(sampledStamps))])
	}
	return sampledSpans[r.IntN(len(sampledSpans))]
}

func sampledTimePolicy(r *rand.Rand, id string) policyset.Policy {
	p := policyset.Policy{ID: id, Name: id, Effect: client.EffectAllow, Condition: "activity.type == '" + diffType + "'", Time: sampledTimeAtom(r)}
	if r.IntN(3) == 0 {
		p.Effect = client.EffectDeny
	}
	if r.IntN(2) == 0 {
		p.Time = "(" + p.Time + " " + []string{"&&", "||"}[r.IntN(2)] + " " + sampledTimeAtom(r) + ")"
	}
	if r.IntN(4) == 0 {
		p.Time = "!" + p.Time
	}
	return p
}

// TestCronSpanSampled holds random changes of time fields to the engine
// over sampled instants (every 131 minutes over 54 weeks, each constant
// and its neighbours, and two instants years away): every move a sample
// makes is in a proved row, and every row is proved. Sampling cannot show
// the analysis complete; it finds a class the cut misses, and every row's
// witness is replayed.
func TestCronSpanSampled(t *testing.T) {
	var instants []time.Time
	for at := timeAnchor.Add(-7 * 24 * time.Hour); at.Before(timeAnchor.Add(timeWindow)); at = at.Add(131 * time.Minute) {
		instants = append(instants, at)
	}
	for _, s := range sampledStamps {
		c, _ := time.Parse(time.RFC3339, s)
		instants = append(instants, c.Add(-time.Nanosecond), c, c.Add(time.Nanosecond), c.Add(17*time.Hour))
	}
	instants = append(instants, time.Date(2021, 7, 14, 18, 30, 0, 0, time.UTC), time.Date(2031, 11, 3, 6, 0, 0, 0, time.UTC))
	moved := 0
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		var before []policyset.Policy
		for i := range 1 + r.IntN(2) {
			before = append(before, sampledTimePolicy(r, fmt.Sprint("p", i)))
		}
		after := slices.Clone(before)
		after[r.IntN(len(after))] = sampledTimePolicy(r, "changed")
		got := provedPairs(t, seed, before, after)
		for _, at := range instants {
			req := policyset.Request{Type: diffType, Approvers: []policyset.User{{ID: "requester"}}, PrivateKey: &policyset.PrivateKey{ID: "k"},
				Params: map[string]any{"type": "TRANSACTION_TYPE_SOLANA"}, Now: at}
			x, y := policyset.Decide(before, req).Verdict, policyset.Decide(after, req).Verdict
			if x != y && !got[[2]string{x, y}] {
				t.Fatalf("seed %d: at %v the engine moves %s -> %s, the analysis does not\nbefore %q\nafter %q", seed, at, x, y, before, after)
			}
		}
		if len(got) > 0 {
			moved++
		}
	}
	if moved < 4 {
		t.Errorf("only %d of 12 changes move a request: the test compares too little", moved)
	}
}

// BenchmarkCronSpanCut is the cut of time.now that a question with three
// weekly CronSpans and one Timestamp makes the first time a process meets
// them (two intervals of 53 weeks scanned minute by minute per span), and
// again with its spans' scans kept.
func BenchmarkCronSpanCut(b *testing.B) {
	spans := []string{sampledSpans[0], sampledSpans[2], sampledSpans[3]}
	cond := "activity.type == '" + diffType + "'"
	for _, warm := range []bool{false, true} {
		b.Run(map[bool]string{false: "cold", true: "warm-spans"}[warm], func(b *testing.B) {
			for range b.N {
				if !warm {
					spanScans.Clear()
				}
				timeCuts.Clear()
				var ps []policyset.Policy
				for i, s := range spans {
					ps = append(ps, policyset.Policy{ID: fmt.Sprint("p", i), Effect: client.EffectAllow, Condition: cond,
						Time: s + " && time.now < Timestamp('2027-01-01T00:00:00Z')"})
				}
				q := newQuestion(diffType, ps, nil)
				q.e.form(q.forms[0].timeF)
				q.e.c.release()
			}
		})
	}
}
