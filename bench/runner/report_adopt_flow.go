package main

import (
	"fmt"
	"slices"
	"strings"
)

// What the report's Adopt section reads alike of the row's two flows
// (report_adopt.go, report_adopt_query.go): each successful run's steps
// and total, in a table of one row per step and a total row, and the
// medians of the target rows. The flows' runs are of two types, with
// figures of their own; flowRun is the part the tables share.

// flowRun is a run of either adopt flow.
type flowRun interface {
	phases() map[string]*phaseResult
	total() float64
}

func (a *adoptResult) phases() map[string]*phaseResult { return a.steps }
func (q *queryRun) phases() map[string]*phaseResult    { return q.steps }

// flowTable is the table of an adopt flow's steps, in order, each named
// by names, from its successful runs, and the total row, whose steps are
// sum ("1 + 2"); with no run, it says so and returns false.
func flowTable[R flowRun](r *reportWriter, runs []R, order []string, names map[string]string, sum string) bool {
	if len(runs) == 0 {
		r.printf("No run succeeded.\n")
		return false
	}
	r.printf("| step | wall | CPU: terraform / provider / emulator | provider peak RSS (MiB) | emulator requests |\n|---|---|---|---|---|\n")
	for _, st := range order {
		r.adoptStepRow(names[st], each(runs, func(run R) *phaseResult { return run.phases()[st] }))
	}
	r.printf("| **total (%s)** | **%s** | | | |\n", sum, spread(totals(runs)))
	return true
}

// each is f of every run, in order.
func each[R, V any](runs []R, f func(R) V) []V {
	out := make([]V, len(runs))
	for i, run := range runs {
		out[i] = f(run)
	}
	return out
}

// perRun is f of every run, in order, as "370, 370, 370".
func perRun[R any](runs []R, f func(R) int) string {
	return strings.Join(each(runs, func(run R) string { return fmt.Sprint(f(run)) }), ", ")
}

// totals are the runs' totals.
func totals[R flowRun](runs []R) []float64 {
	return each(runs, func(run R) float64 { return run.total() })
}

// stepMedian is the median wall time of step st over the runs.
func stepMedian[R flowRun](runs []R, st string) float64 {
	return median(each(runs, func(run R) float64 { return run.phases()[st].wall }))
}

// adoptStepRow is the row of one step of the adopt row's tables, from its
// runs ps: the wall time's median (min–max), each process's median CPU,
// the provider's peak RSS over the runs and the requests of the run that
// made the most.
func (r *reportWriter) adoptStepRow(name string, ps []*phaseResult) {
	of := func(f func(*phaseResult) float64) []float64 {
		v := make([]float64, len(ps))
		for i, p := range ps {
			v[i] = f(p)
		}
		return v
	}
	var rss int64
	most := ps[0].counts
	for _, p := range ps {
		rss = max(rss, p.rssKiB)
		if total(p.counts) > total(most) {
			most = p.counts
		}
	}
	req := fmt.Sprint(total(most))
	if ops := opsByCount(most, func(string) bool { return true }); len(ops) > 0 {
		parts := make([]string, len(ops))
		for i, op := range ops {
			parts[i] = fmt.Sprintf("%s ×%d", op, most[op])
		}
		req += " (" + strings.Join(parts, ", ") + ")"
	}
	r.printf("| %s | %s | %.2f / %.2f / %.2f | %.1f | %s |\n", name, spread(of(wall)),
		median(of(func(p *phaseResult) float64 { return p.tfCPU - p.provCPU })),
		median(of(func(p *phaseResult) float64 { return p.provCPU })),
		median(of(func(p *phaseResult) float64 { return p.emuCPU })), float64(rss)/1024, req)
}

// spread is "median (min–max)" of v.
func spread(v []float64) string {
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(v), slices.Min(v), slices.Max(v))
}
