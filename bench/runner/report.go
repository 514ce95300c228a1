package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// report is bench/RESULTS.md: the environment, then for each N the wall
// times, their ratios, the times at each latency against the ideal, CPU
// and request counts; the growth from the smallest N to the largest; the
// provider's peak memory; and whether each target of the issue is met.
func report(o *options, env environment, results, singles []*result, adopts []*adoptResult, goBench []goBenchmark, failed []string, elapsed time.Duration) string {
	r := newReportWriter(o, results)
	r.goBench = goBench
	r.singles = singles
	r.adopts = adopts
	r.header(env, failed, elapsed)
	lo, hi := slices.Min(o.ns), slices.Max(o.ns)
	// With -configs adopt alone there is nothing per N.
	if len(r.selected) > 0 {
		for _, n := range o.ns {
			r.printf("\n## N = %d\n\n", n)
			r.wallTimes(n)
			r.ratios(n)
			for _, l := range r.latencies {
				r.againstTheIdeal(n, l)
			}
			r.cpuTimes(n)
			r.requestsPerResource(n)
		}
		if hi > lo {
			r.growthTables(lo, hi)
		}
		r.peakMemory(hi)
	}
	r.adoptTable()
	r.singleCreateTable()
	r.decisionCosts()
	r.reviewCosts()
	r.shapeCosts()
	r.targets(lo, hi)
	// No trailing blanks: the table cells are written with "| " after each.
	lines := strings.Split(r.b.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// reportWriter writes one report: the figures of tb for the
// configurations the options selected.
type reportWriter struct {
	b         strings.Builder
	o         *options
	tb        table
	selected  []configuration
	latencies []time.Duration // the non-zero ones something ran at
	missed    int             // targets missed so far
	goBench   []goBenchmark   // the Go benchmarks of the decision code
	singles   []*result       // single creates (singleCreates)
	adopts    []*adoptResult  // the adopt row's runs (runAdopts)
}

func newReportWriter(o *options, results []*result) *reportWriter {
	r := &reportWriter{o: o, tb: table{ns: o.ns, results: results}, selected: o.selected()}
	for _, l := range o.latencies[1:] {
		if slices.ContainsFunc(r.selected, func(c configuration) bool { return c.latency == l }) {
			r.latencies = append(r.latencies, l)
		}
	}
	return r
}

func (r *reportWriter) printf(format string, args ...any) { fmt.Fprintf(&r.b, format, args...) }

// header says when, on what and how the benchmark ran, and which runs failed.
func (r *reportWriter) header(env environment, failed []string, elapsed time.Duration) {
	r.printf("# Benchmark results\n\n")
	r.printf("Written by `make bench` (`go run ./bench/runner`); see [README.md](README.md) for what is measured and how.\n\n")
	r.printf("- date: %s; the whole run took %s\n", env.date, elapsed.Round(time.Second))
	r.printf("- machine: %s; %s CPUs (%s); MemTotal %s; GOMAXPROCS of the runner %d\n", env.uname, env.cpus, env.cpuModel, env.mem, runtime.GOMAXPROCS(0))
	r.printf("- versions: %s; %s; %s; commit %s\n", env.goVersion, env.tfVersion, strings.Join(env.modules, ", "), env.commit)
	ns := make([]string, len(r.o.ns))
	for i, n := range r.o.ns {
		ns[i] = fmt.Sprint(n)
	}
	if len(r.selected) > 0 {
		r.printf("- parameters: N = %s; %d run(s) of each configuration at each N, in an order that rotates between runs; `-parallelism=%d` for every apply, plan and destroy; a fresh emulator, its state in memory, per configuration run\n",
			strings.Join(ns, ", "), r.o.runs, r.o.parallelism)
	} else { // -configs adopt alone: -n does not apply
		r.printf("- parameters: %d run(s); `-parallelism=%d` for every terraform command; a fresh emulator, its state in memory, per run\n", r.o.runs, r.o.parallelism)
	}
	r.printf("- configurations: ")
	for i, c := range r.selected {
		if i > 0 {
			r.printf(", ")
		}
		r.printf("`%s` (N `%s`)", c.label(), c.resource)
	}
	if r.o.adopt {
		if len(r.selected) > 0 {
			r.printf(", ")
		}
		r.printf("`%s` (%d policies, %d tags, %d webhook endpoints; %d run(s))", adoptName, adoptPolicies, adoptTags, adoptWebhooks, r.o.runs)
	}
	r.printf("\n")
	if len(r.latencies) > 0 {
		var ls []string
		for _, l := range r.latencies {
			ls = append(ls, l.String())
		}
		r.printf("- latency (%s): `name@L` is a configuration against an emulator started with `-fault-latency L`, which delays every submit and query by L. The round-trip time (RTT) is taken as L: loopback adds ~0 (well under a millisecond). The configurations that do not talk to the emulator (the floors, terraform_data) run only without latency; their times do not depend on it\n",
			strings.Join(ls, ", "))
	}
	if len(failed) > 0 {
		r.printf("\n**%d configuration run(s) FAILED and are left out of the figures:**\n\n", len(failed))
		for _, f := range failed {
			r.printf("- %s\n", strings.ReplaceAll(strings.SplitN(f, "\n", 2)[0], "|", "\\|"))
		}
	}
}

// wallTimes is the table of wall times at n.
func (r *reportWriter) wallTimes(n int) {
	r.printf("Wall time in seconds: median (min–max over runs).\n\n")
	r.perPhase("| configuration | apply | plan (refresh) | destroy |", func(label, ph string) string {
		v := r.tb.values(n, label, ph, wall)
		if len(v) == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f (%.2f–%.2f)", median(v), slices.Min(v), slices.Max(v))
	})
}

// perPhase writes a table under header with a row for each selected
// configuration and in it a cell for each phase, as cell gives it.
func (r *reportWriter) perPhase(header string, cell func(label, ph string) string) {
	r.printf("%s\n|---|---|---|---|\n", header)
	for _, c := range r.selected {
		r.printf("| %s | ", c.label())
		for _, ph := range phases {
			r.printf("%s | ", cell(c.label(), ph))
		}
		r.printf("\n")
	}
}

// ratios compares the medians of pairs of configurations at n.
func (r *reportWriter) ratios(n int) {
	r.printf("\nRatios of the medians, without latency. `floor-shaped` has custody_policy's schema and no I/O; `floor` has one attribute.\n\n| ratio | apply | plan | destroy |\n|---|---|---|---|\n")
	for _, pair := range [][2]string{{"policy", "floor-shaped"}, {"policy-unchecked", "floor-shaped"}, {"policy", "policy-unchecked"},
		{"tag", "floor-shaped"}, {"webhook", "floor-shaped"}, {"policy", "floor"}, {"floor-shaped", "floor"}, {"floor", "terraform_data"}} {
		if !r.o.configs[pair[0]] || !r.o.configs[pair[1]] {
			continue
		}
		r.printf("| %s / %s | ", pair[0], pair[1])
		for _, ph := range phases {
			a, okA := r.tb.medianWall(n, pair[0], ph)
			f, okF := r.tb.medianWall(n, pair[1], ph)
			if !okA || !okF || f == 0 {
				r.printf("– | ")
				continue
			}
			r.printf("%.2f× | ", a/f)
		}
		r.printf("\n")
	}
}

// againstTheIdeal is the table of the configurations at latency l at n,
// against the ideal and the round trips the latency must add.
func (r *reportWriter) againstTheIdeal(n int, l time.Duration) {
	r.printf("\nAt %s. The ideal is the shaped floor's median without latency plus the round trips that cannot overlap × %s: "+
		"ceil(N / parallelism) = %d for apply and destroy (one wave of %d creates or deletes at a time), and the list pages of a "+
		"refresh for plan; plus the credentials check that each provider process waits for when it is configured (1 for plan, "+
		"2 for apply, 3 for destroy). What the latency added is the median at %s less the median without it; ÷ RTTs says how many round "+
		"trips each wave (or the refresh) took.\n\n", l, l, (n+r.o.parallelism-1)/r.o.parallelism, r.o.parallelism, l)
	r.printf("| configuration | phase | median | ideal | median / ideal | added by the latency | RTTs × latency | added ÷ (RTTs × latency) |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.selected {
		if c.latency != l {
			continue
		}
		for _, ph := range phases {
			m, ok := r.tb.medianWall(n, c.label(), ph)
			if !ok {
				r.printf("| %s | %s | – | | | | | |\n", c.label(), ph)
				continue
			}
			r.printf("| %s | %s | %.2f | ", c.label(), ph, m)
			if id, ok := r.tb.ideal(r.o, n, c, ph); ok && id > 0 {
				r.printf("%.2f | %.2f× | ", id, m/id)
			} else {
				r.printf("– | – | ")
			}
			minimum := float64(rtts(r.o, n, c, ph)) * l.Seconds()
			if m0, ok := r.tb.medianWall(n, c.name, ph); ok {
				r.printf("%.2f | %.2f (%d × %s) | %.2f |\n", m-m0, minimum, rtts(r.o, n, c, ph), l, (m-m0)/minimum)
			} else {
				r.printf("– | %.2f | – |\n", minimum)
			}
		}
	}
}

// cpuTimes is the table of CPU seconds per process at n.
func (r *reportWriter) cpuTimes(n int) {
	r.printf("\nCPU seconds, median: terraform / provider / emulator. Terraform's own is its total less the provider processes'.\n\n")
	r.perPhase("| configuration | apply | plan | destroy |", func(label, ph string) string {
		tf := median(r.tb.values(n, label, ph, func(p *phaseResult) float64 { return p.tfCPU - p.provCPU }))
		pr := median(r.tb.values(n, label, ph, func(p *phaseResult) float64 { return p.provCPU }))
		em := median(r.tb.values(n, label, ph, func(p *phaseResult) float64 { return p.emuCPU }))
		return fmt.Sprintf("%.2f / %.2f / %.2f", tf, pr, em)
	})
}

// requestsPerResource is the table of emulator requests at n.
func (r *reportWriter) requestsPerResource(n int) {
	r.printf("\nEmulator requests per resource (count / N; an operation done fewer than N/100 times shows its count, ×k).\n\n")
	r.printf("| configuration | phase | total | submits | queries | by operation |\n|---|---|---|---|---|---|\n")
	for _, c := range r.selected {
		if !c.custody {
			continue
		}
		for _, ph := range phases {
			cnt, ok, varies := r.tb.counts(n, c.label(), ph)
			if !ok {
				r.printf("| %s | %s | – | – | – | |\n", c.label(), ph)
				continue
			}
			note := ""
			if varies {
				note = " (runs differ; the largest shown)"
			}
			r.printf("| %s | %s | %.2f | %.2f | %.2f | %s%s |\n", c.label(), ph, per(total(cnt), n), per(sumPrefix(cnt, "submit/"), n),
				per(sumPrefix(cnt, "query/"), n), byOp(cnt, n), note)
		}
	}
}

// growthTables is the tables of growth from N = lo to hi.
func (r *reportWriter) growthTables(lo, hi int) {
	r.printf("\n## Growth from N = %d to N = %d\n\n", lo, hi)
	r.printf("Median at %d / median at %d; linear is %.1f×.\n\n", hi, lo, float64(hi)/float64(lo))
	r.printf("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
	for _, c := range r.selected {
		r.printf("| %s | ", c.label())
		for _, ph := range phases {
			if s, ok := r.tb.scale(lo, hi, c.label(), ph); ok {
				r.printf("%.2f× | ", s)
			} else {
				r.printf("– | ")
			}
		}
		r.printf("\n")
	}
	r.printf("\nGrowth relative to the shaped floor's (without latency) or to the ideal's (at a latency): the growth above ÷ the floor's or the ideal's. 1.00 grows as the framework does.\n\n")
	r.printf("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
	for _, c := range r.selected {
		if c.floor == "" {
			continue
		}
		r.printf("| %s | ", c.label())
		for _, ph := range phases {
			if g, _, ok := r.tb.growth(r.o, lo, hi, c, ph); ok {
				r.printf("%.2f | ", g)
			} else {
				r.printf("– | ")
			}
		}
		r.printf("\n")
	}
}

// peakMemory is the table of the providers' peak RSS at N = hi.
func (r *reportWriter) peakMemory(hi int) {
	r.printf("\n## Provider peak memory at N = %d\n\n", hi)
	r.printf("Peak RSS of the provider processes (the wrapper's `ru_maxrss`), max over phases and runs; Terraform starts a provider several times per command.\n\n")
	r.printf("| configuration | peak RSS (MiB) | provider processes per apply / plan / destroy |\n|---|---|---|\n")
	for _, c := range r.selected {
		if c.provider == "" {
			continue
		}
		rss, ok := r.tb.peakRSS(hi, c.label())
		if !ok {
			r.printf("| %s | – | |\n", c.label())
			continue
		}
		var starts []string
		for _, ph := range phases {
			starts = append(starts, fmt.Sprintf("%.0f", median(r.tb.values(hi, c.label(), ph, func(p *phaseResult) float64 { return float64(p.starts) }))))
		}
		r.printf("| %s | %.1f | %s |\n", c.label(), float64(rss)/1024, strings.Join(starts, " / "))
	}
}
