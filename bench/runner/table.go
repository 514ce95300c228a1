package main

import (
	"fmt"
	"slices"
	"time"
)

// table collects the measurements of successful runs.
type table struct {
	ns      []int
	results []*result
}

func (tb table) runs(n int, label string) []*result {
	var out []*result
	for _, r := range tb.results {
		if r.err == nil && r.n == n && r.cfg.label() == label {
			out = append(out, r)
		}
	}
	return out
}

func (tb table) values(n int, cfg, phase string, f func(*phaseResult) float64) []float64 {
	var v []float64
	for _, r := range tb.runs(n, cfg) {
		if p := r.phases[phase]; p != nil {
			v = append(v, f(p))
		}
	}
	return v
}

func wall(p *phaseResult) float64 { return p.wall }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (tb table) medianWall(n int, cfg, phase string) (float64, bool) {
	v := tb.values(n, cfg, phase, wall)
	return median(v), len(v) > 0
}

// counts are the request counts of one phase: those of the run with the
// most requests (they are the same in every run unless something retried),
// and whether the runs differed.
func (tb table) counts(n int, cfg, phase string) (map[string]int, bool, bool) {
	var best map[string]int
	varies := false
	for i, r := range tb.runs(n, cfg) {
		c := r.phases[phase].counts
		if i > 0 && total(c) != total(best) {
			varies = true
		}
		if best == nil || total(c) > total(best) {
			best = c
		}
	}
	return best, best != nil, varies
}

// ideal is the least a configuration with a shaped floor can take at its
// latency: the floor's median at latency 0 plus one round trip per wave
// of -parallelism creates or deletes (apply, destroy), or per list page
// of a refresh (plan). The loopback itself adds next to nothing.
func (tb table) ideal(o *options, n int, c configuration, phase string) (float64, bool) {
	if c.floor == "" {
		return 0, false
	}
	f, ok := tb.medianWall(n, c.floor, phase)
	if !ok {
		return 0, false
	}
	return f + float64(rtts(o, n, c, phase))*c.latency.Seconds(), true
}

// rtts are the round trips one command needs at least, one after the
// other: the waves or list pages, and the credentials check, which each
// provider process that configures the provider waits for before any
// object (the plan configures it once, the apply twice, the destroy three
// times: its refresh, its plan and its apply).
func rtts(o *options, n int, c configuration, phase string) int {
	checks := map[string]int{"apply": 2, "plan": 1, "destroy": 3}[phase]
	if !c.custody {
		checks = 0
	}
	if phase == "plan" {
		return c.refreshRTTs + checks
	}
	return (n+o.parallelism-1)/o.parallelism + checks
}

// at returns c at latency l.
func at(c configuration, l time.Duration) configuration {
	c.latency = l
	return c
}

// growth is c's growth from N = lo to hi ÷ that of its shaped floor
// (without latency) or of its ideal (at a latency), with the figures.
func (tb table) growth(o *options, lo, hi int, c configuration, phase string) (float64, string, bool) {
	s, ok := tb.scale(lo, hi, c.label(), phase)
	if !ok || c.floor == "" {
		return 0, "–", false
	}
	var f float64
	if c.latency == 0 {
		if f, ok = tb.scale(lo, hi, c.floor, phase); !ok {
			return 0, "–", false
		}
	} else {
		a, okA := tb.ideal(o, lo, c, phase)
		b, okB := tb.ideal(o, hi, c, phase)
		if !okA || !okB || a == 0 {
			return 0, "–", false
		}
		f = b / a
	}
	if f == 0 {
		return 0, "–", false
	}
	return s / f, fmt.Sprintf("%.2f (%.2f× / %.2f×)", s/f, s, f), true
}

// scale is cfg's median at N = hi ÷ its median at N = lo.
func (tb table) scale(lo, hi int, cfg, phase string) (float64, bool) {
	a, okA := tb.medianWall(lo, cfg, phase)
	b, okB := tb.medianWall(hi, cfg, phase)
	if !okA || !okB || a == 0 {
		return 0, false
	}
	return b / a, true
}

// peakRSS is the largest provider RSS of cfg's runs at n, over all phases.
func (tb table) peakRSS(n int, cfg string) (int64, bool) {
	var peak int64
	ok := false
	for _, r := range tb.runs(n, cfg) {
		for _, p := range r.phases {
			peak, ok = max(peak, p.rssKiB), true
		}
	}
	return peak, ok
}

// per is count per resource.
func per(count, n int) float64 { return float64(count) / float64(n) }
