package main

import "fmt"

// What the access review adds to a plan on other organization shapes
// (issue 50 item 6): policy-review-<shape> against
// policy-noreview-<shape>, at conditionPhase (every policy's limit
// doubled), in the CPU of terraform plan with its provider (tfCPU:
// terraform's own and its provider processes').

// shapeTargetN is where the shapes' targets are; at other N the figures
// are recorded only.
const shapeTargetN = 200

// shapeTargets are the most a plan on each shape may cost with the review,
// as a multiple of the same plan without it.
var shapeTargets = map[string]float64{"shared10": 1.5, "lists": 2, "one": 4}

func tfCPU(p *phaseResult) float64 { return p.tfCPU }

// shapeCosts is the section on the shapes.
func (r *reportWriter) shapeCosts() {
	measured := false
	for _, s := range shapes {
		measured = measured || r.o.configs["policy-review-"+s] || r.o.configs["policy-noreview-"+s]
	}
	if !measured {
		return
	}
	r.printf("\n## Access review by organization shape\n\n")
	r.printf("The access review's corpus (`policy-review`: N policies on `%s`, each with its own limit and 2 to 4 approvers, under the two controls) in three more shapes of destinations: `shared10`, ten addresses (policy i sends to the (i mod 10)th); `lists`, each policy `eth.tx.to in [...]` of 5 of 20 addresses; `one`, every policy the same address. Where destinations are shared, a change's question meets every policy of its address. `%s` doubles every policy's limit: each policy's decisions change. CPU seconds of `terraform plan` with its provider processes (user + system), median (min–max) over runs, with the review (`policy-review-<shape>`) and without it (`policy-noreview-<shape>`, the build with the tag `bench_noaccessreview`); the runs of the two take turns.\n\n",
		"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", conditionPhase)
	r.printf("| N | shape | with the review: CPU (s) | without: CPU (s) | ratio of the medians | target | wall (s) with / without |\n|---|---|---|---|---|---|---|\n")
	for _, n := range r.o.ns {
		for _, s := range shapes {
			a := r.tb.values(n, "policy-review-"+s, conditionPhase, tfCPU)
			u := r.tb.values(n, "policy-noreview-"+s, conditionPhase, tfCPU)
			if len(a) == 0 && len(u) == 0 {
				continue
			}
			sa, su, ratio := withWithout(a, u, "%.2f×")
			target := "recorded"
			if n == shapeTargetN {
				target = fmt.Sprintf("≤ %.1f×", shapeTargets[s])
			}
			wa, _ := r.tb.medianWall(n, "policy-review-"+s, conditionPhase)
			wu, _ := r.tb.medianWall(n, "policy-noreview-"+s, conditionPhase)
			r.printf("| %d | %s | %s | %s | %s | %s | %.2f / %.2f |\n", n, s, sa, su, ratio, target, wa, wu)
		}
	}
}

// shapeTargetRows: each shape within its target at shapeTargetN, where it
// was measured.
func (r *reportWriter) shapeTargetRows() {
	for _, s := range shapes {
		if !r.o.configs["policy-review-"+s] && !r.o.configs["policy-noreview-"+s] {
			continue
		}
		a := r.tb.values(shapeTargetN, "policy-review-"+s, conditionPhase, tfCPU)
		u := r.tb.values(shapeTargetN, "policy-noreview-"+s, conditionPhase, tfCPU)
		ok := len(a) > 0 && len(u) > 0 && median(u) > 0
		m := "–"
		if ok {
			m = fmt.Sprintf("%.2f× (%.2fs / %.2fs CPU, medians of %d and %d runs)", median(a)/median(u), median(a), median(u), len(a), len(u))
		}
		r.row(fmt.Sprintf("access review, shape %s: a plan that doubles the limit of N = %d policies costs terraform and its provider at most %.1f× the CPU of the build without the review", s, shapeTargetN, shapeTargets[s]),
			m, ok && median(a) <= shapeTargets[s]*median(u), ok)
	}
}
