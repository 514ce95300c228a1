package symbolic

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// CronSpan is decided where its window repeats every week of local time
// (day-of-month and month *, as business hours are): time.now's classes
// are the intervals its Timestamp constants cut, each cut again by which
// CronSpans hold, found minute by minute (a CronSpan's value depends on
// the minute of time.now alone: policylang's holds looks back whole
// minutes from it). A long interval is scanned over 53 weeks, the fixed
// window from timeAnchor where it holds it: every minute of the week
// under each of the zones' offsets of a year, and each change of offset.
// The witness's time.now is the first instant of its class found. The
// zones' rules are those of the scanned weeks: a zone whose rules differ
// elsewhere is decided as they are there. A CronSpan that names days of
// the month or months stays over-approximated.

// timeAnchor is the first Monday of 2026: long intervals are scanned over
// the 53 weeks from it, or the 53 weeks nearest it inside them.
var timeAnchor = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

const timeWindow = 53 * 7 * 24 * time.Hour

// timeCut is time.now's classes: an interval of the constants each, with
// the CronSpans' values in it (vecs, by d.spanKeys) and an instant of the
// class (at, Unix nanoseconds).
type timeCut struct {
	ints []intClass
	vecs [][]bool
	at   []*big.Int
}

// timeCuts are cuts already made, by spans and constants: a review asks
// many questions over one organization's time fields.
var timeCuts sync.Map

// cutTime cuts time.now's intervals by the spans' values (at most 64).
func cutTime(consts []*big.Int, keys []string, spans []*policylang.CronWindow) *timeCut {
	var k strings.Builder
	for _, key := range keys {
		k.WriteString(key + "\x00")
	}
	for _, c := range consts {
		k.WriteString(c.String() + ",")
	}
	if v, ok := timeCuts.Load(k.String()); ok {
		if cut, ok := v.(*timeCut); ok {
			return cut
		}
	}
	cut := &timeCut{}
	for _, cl := range intClasses(consts, minTime, maxTime) {
		from, to := scanRange(nanosTime(cl.lo), nanosTime(cl.hi))
		first := from.Truncate(time.Minute)
		n := int(to.Truncate(time.Minute).Sub(first)/time.Minute) + 1
		holds := make([][]bool, len(spans))
		for i, w := range spans {
			holds[i] = spanHolds(keys[i], w, first, n)
		}
		// Which spans hold, as bits (cutTime is asked for at most 64).
		seen := map[uint64]bool{}
		for m := range n {
			var bits uint64
			for i := range spans {
				if holds[i][m] {
					bits |= 1 << i
				}
			}
			if seen[bits] {
				continue
			}
			seen[bits] = true
			vec := make([]bool, len(spans))
			for i := range spans {
				vec[i] = bits&(1<<i) != 0
			}
			at := timeNanos(first.Add(time.Duration(m) * time.Minute))
			if m == 0 || at.Cmp(cl.lo) < 0 {
				at = timeNanos(from)
			}
			cut.ints = append(cut.ints, cl)
			cut.vecs = append(cut.vecs, vec)
			cut.at = append(cut.at, at)
		}
	}
	timeCuts.Store(k.String(), cut)
	return cut
}

// scanRange is what of [lo, hi] is scanned: all of it when it is at most
// timeWindow long, else the 53 weeks from timeAnchor, moved inside it.
func scanRange(lo, hi time.Time) (from, to time.Time) {
	if hi.Sub(lo) <= timeWindow && !hi.After(lo.Add(timeWindow)) {
		return lo, hi
	}
	from = timeAnchor
	if from.Before(lo) {
		from = lo
	}
	if from.Add(timeWindow).After(hi) {
		from = hi.Add(-timeWindow)
	}
	return from, from.Add(timeWindow)
}

// spanHolds are a span's values in the n minutes from first, computed as
// policylang does: it holds in the minute m where it fires in one of the
// Minutes() minutes up to m. Kept by span and minutes: the questions of a
// review share their spans in many combinations.
func spanHolds(key string, w *policylang.CronWindow, first time.Time, n int) []bool {
	k := fmt.Sprintf("%s\x00%d\x00%d", key, first.UnixNano(), n)
	if v, ok := spanScans.Load(k); ok {
		if holds, ok := v.([]bool); ok {
			return holds
		}
	}
	look := w.Minutes()
	start := first.Add(-time.Duration(look-1) * time.Minute)
	fired, count := make([]bool, n+look-1), 0
	holds := make([]bool, n)
	for i := range fired {
		fired[i] = w.Fires(start.Add(time.Duration(i) * time.Minute))
		if fired[i] {
			count++
		}
		if i >= look && fired[i-look] {
			count--
		}
		if i >= look-1 {
			holds[i-(look-1)] = count > 0
		}
	}
	spanScans.Store(k, holds)
	return holds
}

// spanScans are spanHolds' answers.
var spanScans sync.Map

// cronDecided is f's value where f is a weekly CronSpan: the classes of
// time.now in which it holds.
func (e *encoder) cronDecided(f *form) (_ value, ok bool) {
	if f.cron == nil {
		return value{}, false
	}
	s := e.scalar("time.now", &term{kind: tPath, typ: &policylang.Type{Kind: policylang.KindTimestamp}, path: "time.now", gen: "time.now"})
	k := -1
	for i, key := range e.d.spanKeys {
		if key == f.key {
			k = i
		}
	}
	if s.cut == nil || k < 0 {
		return value{}, false
	}
	var in []lit
	for i, vec := range s.cut.vecs {
		if vec[k] {
			in = append(in, s.classes[i])
		}
	}
	return value{e.c.or(in...), e.readsErr(f)}, true
}

// sortSpans orders the spans by key, so that a question's classes do not
// depend on the order its policies came in.
func (d *domains) sortSpans() {
	idx := make([]int, len(d.spanKeys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(d.spanKeys[a], d.spanKeys[b]) })
	keys, spans := make([]string, len(idx)), make([]*policylang.CronWindow, len(idx))
	for i, j := range idx {
		keys[i], spans[i] = d.spanKeys[j], d.spans[j]
	}
	d.spanKeys, d.spans = keys, spans
}

// weeklyWindow is the CronSpan call n, checked, where its window repeats
// every week; nil otherwise (it stays over-approximated).
func weeklyWindow(n *policylang.Call) *policylang.CronWindow {
	if len(n.Args) != 3 {
		return nil
	}
	var args [3]string
	for i, a := range n.Args {
		lit, ok := a.(*policylang.StringLit)
		if !ok {
			return nil
		}
		args[i] = lit.Value
	}
	w, ok := policylang.ParseCronWindow(args[0], args[1], args[2])
	if !ok || !w.Weekly() {
		return nil
	}
	return w
}
