package main

import (
	"fmt"
	"slices"
)

// What the access review (issue 31) adds to a plan: policy-review against
// policy-noreview (the same provider built with the tag
// bench_noaccessreview) on the corpus of distinct policies
// (distinctPolicies), in provider CPU seconds, at renamePhase (no decision
// changes: no report) and conditionPhase (every policy's decisions
// change: a report per policy).

const (
	reviewTargetN       = 1000
	reviewRenameTarget  = 1.05  // policy-review / policy-noreview provider CPU, renamePhase
	reviewChangeTarget  = 1.25  // the same, conditionPhase
	reportWarmTarget    = 50.0  // ms, one changed policy's report among 1,000 policies, warm
	reportColdTarget    = 250.0 // ms, the same cold
	reviewConfig        = "policy-review"
	reviewConfigWithout = "policy-noreview"
)

func provCPU(p *phaseResult) float64 { return p.provCPU }

// reviewCosts is the section on the access review.
func (r *reportWriter) reviewCosts() {
	if !r.o.configs[reviewConfig] && !r.o.configs[reviewConfigWithout] {
		return
	}
	r.printf("\n## Access review\n\n")
	r.printf("The access review (issue 31) works in a plan that changes policies. `%s` and `%s` hold N distinct policies (each allows ETH transfers to its own address up to its own limit, with 2 to 4 approvers), under two controls (transactions never signed alone, key export denied); `%s` is the same provider built with the tag `bench_noaccessreview`. `%s` renames every policy (`-var suffix=-renamed`): no decision changes, so no report. `%s` changes every policy's condition (`-var limit_wei=2000`, each limit doubled): every policy's decisions change, and each change gets its report and its control check. Both builds run the lockout guard. Provider CPU seconds (all the provider processes of the command, user + system), median (min–max) over runs; the runs of the two take turns.\n\n",
		reviewConfig, reviewConfigWithout, reviewConfigWithout, renamePhase, conditionPhase)
	r.printf("| N | phase | %s provider CPU (s) | %s provider CPU (s) | ratio of the medians | wall (s) with / without | requests with / without |\n|---|---|---|---|---|---|---|\n", reviewConfig, reviewConfigWithout)
	for _, n := range r.o.ns {
		for _, ph := range []string{renamePhase, conditionPhase} {
			a := r.tb.values(n, reviewConfig, ph, provCPU)
			u := r.tb.values(n, reviewConfigWithout, ph, provCPU)
			if len(a) == 0 && len(u) == 0 {
				continue
			}
			sa, su, ratio := withWithout(a, u, "%.3f")
			wa, _ := r.tb.medianWall(n, reviewConfig, ph)
			wu, _ := r.tb.medianWall(n, reviewConfigWithout, ph)
			ca, _, _ := r.tb.counts(n, reviewConfig, ph)
			cu, _, _ := r.tb.counts(n, reviewConfigWithout, ph)
			r.printf("| %d | %s | %s | %s | %s | %.2f / %.2f | %s / %s |\n", n, ph, sa, su, ratio, wa, wu, allOps(ca), allOps(cu))
		}
	}
}

// withWithout are the cells of a measure with and without a feature: each
// side's median (min–max) and runs, and the ratio of the medians in
// ratioFormat; "–" where a side was not measured.
func withWithout(a, u []float64, ratioFormat string) (sa, su, ratio string) {
	sa, su, ratio = "–", "–", "–"
	if len(a) > 0 {
		sa = spreadPrec(a, 2) + fmt.Sprintf(", runs: %d", len(a))
	}
	if len(u) > 0 {
		su = spreadPrec(u, 2) + fmt.Sprintf(", runs: %d", len(u))
	}
	if len(a) > 0 && len(u) > 0 && median(u) > 0 {
		ratio = fmt.Sprintf(ratioFormat, median(a)/median(u))
	}
	return sa, su, ratio
}

// reviewTargets: the review within its targets of the build without it
// at the largest N (the targets are at reviewTargetN; a smaller N says
// so), with the same requests; one report within its Go benchmark
// targets.
func (r *reportWriter) reviewTargets() {
	n := slices.Max(r.o.ns)
	at := ""
	if n != reviewTargetN {
		at = fmt.Sprintf(" (the target is at N = %d)", reviewTargetN)
	}
	for _, t := range []struct {
		phase, what string
		target      float64
	}{
		{renamePhase, "renames", reviewRenameTarget},
		{conditionPhase, "changes the condition of", reviewChangeTarget},
	} {
		a := r.tb.values(n, reviewConfig, t.phase, provCPU)
		u := r.tb.values(n, reviewConfigWithout, t.phase, provCPU)
		ok := len(a) > 0 && len(u) > 0 && median(u) > 0
		m := "–"
		if ok {
			m = fmt.Sprintf("%+.1f%% (%.2fs / %.2fs CPU, medians of %d and %d runs)", 100*(median(a)/median(u)-1), median(a), median(u), len(a), len(u))
		}
		r.row(fmt.Sprintf("access review: a plan that %s N = %d distinct policies costs the provider at most %.0f%% more CPU than the build without the review%s", t.what, n, 100*(t.target-1), at),
			m, ok && median(a) <= t.target*median(u), ok)
		r.sameRequestsRow(fmt.Sprintf("access review adds no request to that plan (N = %d, %s)", n, t.phase), n, t.phase,
			reviewConfig, reviewConfigWithout, "without the review")
	}
	for _, b := range []struct {
		name, what string
		target     float64
	}{
		{"ReportWarm", "warm (the organization's outcomes already computed in the command)", reportWarmTarget},
		{"ReportCold", "cold (from the protocol's values to the diagnostics)", reportColdTarget},
	} {
		r.goBenchRow(fmt.Sprintf("one changed policy's access report among 1,000 policies under %.0f ms, %s", b.target, b.what), b.name, b.target)
	}
}
