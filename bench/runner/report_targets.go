package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Targets of the issue (12).
const (
	shapedTarget  = 1.15     // policy / shaped floor, every phase, every N, no latency
	idealTarget   = 1.10     // policy / ideal at a latency, every phase, every N
	growthTarget  = 1.10     // policy's growth from the smallest N to the largest ÷ the shaped floor's (or the ideal's)
	checkTarget   = 1.05     // policy / policy-unchecked plan: the expression checks add under 5%
	rssTargetKiB  = 64 << 10 // provider peak RSS at N = 1000: under 64 MiB
	rssTargetN    = 1000
	perCommandCap = 10 // "O(1) per command": at most this many requests besides the submits, at every N, and no more at the largest N
	// Batching (issue 24).
	batchedSubmits = 0.15 // submits per created or deleted resource where creates or deletes are batched
	batchSlowdown  = 1.05 // batched / unbatched apply and destroy at a latency
	// Batching where it saves approvals (issue 33).
	defaultBatchIdeal = 1.10                   // policy apply and destroy, batching by default and no approval needed, / the ideal at a latency
	singleCreateCap   = 500 * time.Millisecond // a single create's added wall time: batching's default send_after
)

// targets is the table of the targets, each computed from the
// figures above it: met, MISSED or not measured.
func (r *reportWriter) targets(lo, hi int) {
	r.printf("\n## Targets\n\nEach status is computed from the figures above. O(1) requests per command: besides the submits, at most %d requests at every N, and no more at the largest N than at the smallest.\n\n", perCommandCap)
	r.printf("| target | measured | status |\n|---|---|---|\n")
	policy := configurations[slices.IndexFunc(configurations, func(c configuration) bool { return c.name == "policy" })]
	r.shapedFloorTargets()
	lats := r.latencies
	if len(lats) == 0 {
		lats = []time.Duration{50 * time.Millisecond} // the target's latency, "not measured"
	}
	r.idealTargets(policy, lats)
	r.growthTargets(policy, lats, lo, hi)
	r.checkTargets()
	r.decisionTargets()
	r.reviewTargets()
	r.shapeTargetRows()
	r.requestTargets()
	r.batchingTargets(lats)
	r.memoryTarget(hi)
	r.adoptTargetRow()
	if r.missed > 0 {
		r.printf("\n%d target(s) MISSED. The CPU table above says which process the time goes to; see README.md for profiling.\n", r.missed)
	} else {
		r.printf("\nEvery measured target is met.\n")
	}
}

// row is one target's line; a missed target counts in r.missed.
func (r *reportWriter) row(target, measured string, ok, measuredAtAll bool) {
	status := "met"
	switch {
	case !measuredAtAll:
		status = "not measured"
	case !ok:
		status = "**MISSED**"
		r.missed++
	}
	r.printf("| %s | %s | %s |\n", target, measured, status)
}

// shapedFloorTargets: policy within shapedTarget × the shaped floor,
// without latency, in every phase at every N.
func (r *reportWriter) shapedFloorTargets() {
	for _, n := range r.o.ns {
		for _, ph := range phases {
			a, okA := r.tb.medianWall(n, "policy", ph)
			f, okF := r.tb.medianWall(n, "floor-shaped", ph)
			m := "–"
			if okA && okF && f > 0 {
				m = fmt.Sprintf("%.2f× (%.2fs / %.2fs)", a/f, a, f)
			}
			r.row(fmt.Sprintf("policy %s at N = %d within %.2f× the shaped floor, no latency", ph, n, shapedTarget), m, okA && okF && a <= shapedTarget*f, okA && okF && f > 0)
		}
	}
}

// idealTargets: policy within idealTarget × the ideal at each latency.
func (r *reportWriter) idealTargets(policy configuration, lats []time.Duration) {
	for _, l := range lats {
		c := at(policy, l)
		for _, n := range r.o.ns {
			for _, ph := range phases {
				a, okA := r.tb.medianWall(n, c.label(), ph)
				id, okI := r.tb.ideal(r.o, n, c, ph)
				m := "–"
				if okA && okI && id > 0 {
					m = fmt.Sprintf("%.2f× (%.2fs / ideal %.2fs)", a/id, a, id)
				}
				r.row(fmt.Sprintf("policy %s at N = %d at %s within %.2f× the ideal", ph, n, l, idealTarget), m, okA && okI && a <= idealTarget*id, okA && okI && id > 0)
			}
		}
	}
}

// growthTargets: policy grows from N = lo to hi at most growthTarget × as
// much as the shaped floor (without latency) or the ideal (at a latency).
func (r *reportWriter) growthTargets(policy configuration, lats []time.Duration, lo, hi int) {
	if hi > lo {
		for _, c := range append([]configuration{policy}, func() (cs []configuration) {
			for _, l := range lats {
				cs = append(cs, at(policy, l))
			}
			return cs
		}()...) {
			against := "the shaped floor's"
			if c.latency > 0 {
				against = "the ideal's"
			}
			for _, ph := range phases {
				g, m, ok := r.tb.growth(r.o, lo, hi, c, ph)
				r.row(fmt.Sprintf("%s %s: growth from N = %d to %d at most %.2f× %s", c.label(), ph, lo, hi, growthTarget, against), m, ok && g <= growthTarget, ok)
			}
		}
	} else {
		r.row(fmt.Sprintf("growth against the shaped floor's at most %.2f×", growthTarget), "needs two values of -n", false, false)
	}
}

// checkTargets: the policy expression checks add under checkTarget to a plan.
func (r *reportWriter) checkTargets() {
	for _, n := range r.o.ns {
		a, okA := r.tb.medianWall(n, "policy", "plan")
		u, okU := r.tb.medianWall(n, "policy-unchecked", "plan")
		m := "–"
		if okA && okU && u > 0 {
			m = fmt.Sprintf("%+.1f%% (%.2fs / %.2fs)", 100*(a/u-1), a, u)
		}
		r.row(fmt.Sprintf("policy expression checks add under %.0f%% to a plan of N = %d policies", 100*(checkTarget-1), n), m,
			okA && okU && a <= checkTarget*u, okA && okU && u > 0)
	}
}

// unbatchedIdealRatio is policy@50ms / the ideal before batching, as
// issue 24 states it.
var unbatchedIdealRatio = map[string]float64{"apply": 0.95, "destroy": 0.96}

// requestTargets: the requests of each configuration that talks to the
// emulator, by requestTarget.
func (r *reportWriter) requestTargets() {
	for _, c := range r.selected {
		if !c.custody || c.latency != 0 {
			continue
		}
		for _, ph := range phases {
			target := map[string]string{
				"apply":   "1.00 submit per resource + O(1) requests per command",
				"plan":    "O(1) requests per command",
				"destroy": "1.00 submit per resource + O(1) requests per command",
			}[ph]
			maxSubmits := 1.0
			if c.batched[ph] {
				maxSubmits = batchedSubmits
				target = fmt.Sprintf("at most %.2f submit per resource (batched) + O(1) requests per command", batchedSubmits)
			}
			m, ok, measured := r.tb.requestTarget(r.o, c.label(), ph, maxSubmits)
			r.row(fmt.Sprintf("%s %s: %s", c.label(), ph, target), m, ok, measured)
		}
	}
}

// memoryTarget: the custody provider's peak RSS at N = hi under rssTargetKiB.
func (r *reportWriter) memoryTarget(hi int) {
	var peak int64
	okPeak := false
	for _, c := range r.selected {
		if c.custody {
			if rss, ok := r.tb.peakRSS(hi, c.label()); ok {
				peak, okPeak = max(peak, rss), true
			}
		}
	}
	label := fmt.Sprintf("custody provider peak RSS at N = %d under %d MiB", hi, rssTargetKiB>>10)
	if hi != rssTargetN {
		label += fmt.Sprintf(" (the target is at N = %d)", rssTargetN)
	}
	r.row(label, fmt.Sprintf("%.1f MiB", float64(peak)/1024), peak < rssTargetKiB, okPeak)
}

// requestTarget checks the requests of one phase of a configuration at
// every N: at most one submit per resource, and besides the submits at most
// perCommandCap requests, no more at the largest N than at the smallest.
func (tb table) requestTarget(o *options, label, phase string, maxSubmits float64) (measured string, ok, measuredAtAll bool) {
	ok, measuredAtAll = true, true
	var parts []string
	var others []int
	for _, n := range o.ns {
		cnt, found, _ := tb.counts(n, label, phase)
		if !found {
			return "–", false, false
		}
		subs := sumPrefix(cnt, "submit/")
		other := total(cnt) - subs
		others = append(others, other)
		p := fmt.Sprintf("N = %d: ", n)
		if phase != "plan" {
			p += fmt.Sprintf("%.2f submit/resource + ", per(subs, n))
			ok = ok && float64(subs) <= maxSubmits*float64(n)
		} else if subs > 0 {
			p += fmt.Sprintf("%d submits + ", subs)
			ok = false
		}
		p += fmt.Sprint(other)
		if other > 0 {
			p += " (" + byOpCount(cnt, "submit/") + ")"
		}
		parts = append(parts, p)
		ok = ok && other <= perCommandCap
	}
	// The N values in order of size: the count must not grow with N.
	lo, hi := slices.Index(o.ns, slices.Min(o.ns)), slices.Index(o.ns, slices.Max(o.ns))
	ok = ok && others[hi] <= others[lo]
	return strings.Join(parts, "; "), ok, measuredAtAll
}

// batchingTargets: where batching saves no approval (the emulator's root
// user under a quorum of one), policy apply and destroy with batching left
// to its default are within defaultBatchIdeal × the ideal at each latency
// (issue 33), with always-batched (policy-batched, issue 24's target
// beside it) and unbatched (policy-nobatch) shown beside them. And a single
// create is slower by at most singleCreateCap.
func (r *reportWriter) batchingTargets(lats []time.Duration) {
	policy := configurations[slices.IndexFunc(configurations, func(c configuration) bool { return c.name == "policy" })]
	for _, l := range lats {
		for _, n := range r.o.ns {
			for _, ph := range []string{"apply", "destroy"} {
				d, okD := r.tb.medianWall(n, "policy@"+l.String(), ph)
				b, okB := r.tb.medianWall(n, "policy-batched@"+l.String(), ph)
				u, okU := r.tb.medianWall(n, "policy-nobatch@"+l.String(), ph)
				id, okI := r.tb.ideal(r.o, n, at(policy, l), ph)
				m := "–"
				if okD && okI && id > 0 {
					m = fmt.Sprintf("%.2f× the ideal (%.2fs / %.2fs)", d/id, d, id)
					if okB && b > 0 {
						m += fmt.Sprintf("; always batched %.2f× (%.2fs)", b/id, b)
					}
					if okU && u > 0 {
						m += fmt.Sprintf("; unbatched %.2f× (%.2fs)", u/id, u)
					}
				}
				r.row(fmt.Sprintf("policy %s, batching by default where no approval is needed, at N = %d at %s within %.2f× the ideal", ph, n, l,
					defaultBatchIdeal), m, okD && okI && d <= defaultBatchIdeal*id, okD && okI && id > 0)
				limit := unbatchedIdealRatio[ph] * batchSlowdown
				m = "–"
				if okB && okI && id > 0 {
					m = fmt.Sprintf("%.2f× the ideal (%.2fs / %.2fs)", b/id, b, id)
				}
				r.row(fmt.Sprintf("always-batched policy %s at N = %d at %s within %.2f× the ideal (%.2f× before batching, +%.0f%%)", ph, n, l, limit,
					unbatchedIdealRatio[ph], 100*(batchSlowdown-1)), m, okB && okI && b <= limit*id, okB && okI && id > 0)
			}
		}
	}
	for _, l := range lats {
		b, okB := medianOf(r.singles, "policy-batched@"+l.String())
		u, okU := medianOf(r.singles, "policy-nobatch@"+l.String())
		m := "–"
		if okB && okU {
			m = fmt.Sprintf("%+.0f ms (%.2fs / %.2fs unbatched)", 1000*(b-u), b, u)
		}
		r.row(fmt.Sprintf("a single always-batched policy create at %s slower by at most send_after's default, %s", l, singleCreateCap), m,
			okB && okU && b-u <= singleCreateCap.Seconds(), okB && okU)
	}
}
