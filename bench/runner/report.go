package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
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
)

type environment struct {
	date, uname, cpus, cpuModel, mem, goVersion, tfVersion, commit string
	modules                                                        []string
}

func describeEnvironment(ctx context.Context, root string, t *tools) environment {
	sh := func(name string, args ...string) string {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = root
		cmd.Env = append(cleanEnv(), "CHECKPOINT_DISABLE=1")
		out, err := cmd.Output()
		if err != nil {
			return "(" + name + ": " + err.Error() + ")"
		}
		return strings.TrimSpace(string(out))
	}
	e := environment{
		date:      time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		uname:     sh("uname", "-srm"),
		cpus:      sh("nproc"),
		goVersion: sh("go", "version"),
		tfVersion: strings.SplitN(sh(t.terraform, "version"), "\n", 2)[0],
		commit:    sh("git", "describe", "--always", "--dirty"),
	}
	e.modules = strings.Split(sh("go", "list", "-m", "github.com/hashicorp/terraform-plugin-framework",
		"github.com/hashicorp/terraform-plugin-go", "github.com/hashicorp/go-plugin"), "\n")
	e.cpuModel = procField("/proc/cpuinfo", "model name")
	e.mem = procField("/proc/meminfo", "MemTotal")
	return e
}

// procField is the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

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

func total(c map[string]int) int {
	t := 0
	for _, v := range c {
		t += v
	}
	return t
}

func sumPrefix(c map[string]int, prefix string) int {
	t := 0
	for k, v := range c {
		if strings.HasPrefix(k, prefix) {
			t += v
		}
	}
	return t
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

// rtts are the round trips one command needs at least, one after the other.
func rtts(o *options, n int, c configuration, phase string) int {
	if phase == "plan" {
		return c.refreshRTTs
	}
	return (n + o.parallelism - 1) / o.parallelism
}

// at returns c at latency l.
func at(c configuration, l time.Duration) configuration {
	c.latency = l
	return c
}

func report(o *options, env environment, results []*result, failed []string, elapsed time.Duration) string {
	tb := table{ns: o.ns, results: results}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	selected := o.selected()
	var latencies []time.Duration // the non-zero ones something ran at
	for _, l := range o.latencies[1:] {
		if slices.ContainsFunc(selected, func(c configuration) bool { return c.latency == l }) {
			latencies = append(latencies, l)
		}
	}

	w("# Benchmark results\n\n")
	w("Written by `make bench` (`go run ./bench/runner`); see [README.md](README.md) for what is measured and how.\n\n")
	w("- date: %s; the whole run took %s\n", env.date, elapsed.Round(time.Second))
	w("- machine: %s; %s CPUs (%s); MemTotal %s; GOMAXPROCS of the runner %d\n", env.uname, env.cpus, env.cpuModel, env.mem, runtime.GOMAXPROCS(0))
	w("- versions: %s; %s; %s; commit %s\n", env.goVersion, env.tfVersion, strings.Join(env.modules, ", "), env.commit)
	ns := make([]string, len(o.ns))
	for i, n := range o.ns {
		ns[i] = fmt.Sprint(n)
	}
	w("- parameters: N = %s; %d run(s) of each configuration at each N, in an order that rotates between runs; `-parallelism=%d` for every apply, plan and destroy; a fresh emulator, its state in memory, per configuration run\n",
		strings.Join(ns, ", "), o.runs, o.parallelism)
	w("- configurations: ")
	for i, c := range selected {
		if i > 0 {
			w(", ")
		}
		w("`%s` (N `%s`)", c.label(), c.resource)
	}
	w("\n")
	if len(latencies) > 0 {
		var ls []string
		for _, l := range latencies {
			ls = append(ls, l.String())
		}
		w("- latency (%s): `name@L` is a configuration against an emulator started with `-fault-latency L`, which delays every submit and query by L. The round-trip time (RTT) is taken as L: loopback adds ~0 (well under a millisecond). The configurations that do not talk to the emulator (the floors, terraform_data) run only without latency; their times do not depend on it\n",
			strings.Join(ls, ", "))
	}
	if len(failed) > 0 {
		w("\n**%d configuration run(s) FAILED and are left out of the figures:**\n\n", len(failed))
		for _, f := range failed {
			w("- %s\n", strings.ReplaceAll(strings.SplitN(f, "\n", 2)[0], "|", "\\|"))
		}
	}

	for _, n := range o.ns {
		w("\n## N = %d\n\n", n)
		w("Wall time in seconds: median (min–max over runs).\n\n")
		w("| configuration | apply | plan (refresh) | destroy |\n|---|---|---|---|\n")
		for _, c := range selected {
			w("| %s | ", c.label())
			for _, ph := range phases {
				v := tb.values(n, c.label(), ph, wall)
				if len(v) == 0 {
					w("– | ")
					continue
				}
				w("%.2f (%.2f–%.2f) | ", median(v), slices.Min(v), slices.Max(v))
			}
			w("\n")
		}
		w("\nRatios of the medians, without latency. `floor-shaped` has custody_policy's schema and no I/O; `floor` has one attribute.\n\n| ratio | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, pair := range [][2]string{{"policy", "floor-shaped"}, {"policy-unchecked", "floor-shaped"}, {"policy", "policy-unchecked"},
			{"tag", "floor-shaped"}, {"webhook", "floor-shaped"}, {"policy", "floor"}, {"floor-shaped", "floor"}, {"floor", "terraform_data"}} {
			if !o.configs[pair[0]] || !o.configs[pair[1]] {
				continue
			}
			w("| %s / %s | ", pair[0], pair[1])
			for _, ph := range phases {
				a, okA := tb.medianWall(n, pair[0], ph)
				f, okF := tb.medianWall(n, pair[1], ph)
				if !okA || !okF || f == 0 {
					w("– | ")
					continue
				}
				w("%.2f× | ", a/f)
			}
			w("\n")
		}
		for _, l := range latencies {
			w("\nAt %s. The ideal is the shaped floor's median without latency plus the round trips that cannot overlap × %s: "+
				"ceil(N / parallelism) = %d for apply and destroy (one wave of %d creates or deletes at a time), and the list pages of a "+
				"refresh for plan. What the latency added is the median at %s less the median without it; ÷ RTTs says how many round "+
				"trips each wave (or the refresh) took.\n\n", l, l, rtts(o, n, configuration{}, "apply"), o.parallelism, l)
			w("| configuration | phase | median | ideal | median / ideal | added by the latency | RTTs × latency | added ÷ (RTTs × latency) |\n|---|---|---|---|---|---|---|---|\n")
			for _, c := range selected {
				if c.latency != l {
					continue
				}
				for _, ph := range phases {
					m, ok := tb.medianWall(n, c.label(), ph)
					if !ok {
						w("| %s | %s | – | | | | | |\n", c.label(), ph)
						continue
					}
					w("| %s | %s | %.2f | ", c.label(), ph, m)
					if id, ok := tb.ideal(o, n, c, ph); ok && id > 0 {
						w("%.2f | %.2f× | ", id, m/id)
					} else {
						w("– | – | ")
					}
					minimum := float64(rtts(o, n, c, ph)) * l.Seconds()
					if m0, ok := tb.medianWall(n, c.name, ph); ok {
						w("%.2f | %.2f (%d × %s) | %.2f |\n", m-m0, minimum, rtts(o, n, c, ph), l, (m-m0)/minimum)
					} else {
						w("– | %.2f | – |\n", minimum)
					}
				}
			}
		}
		w("\nCPU seconds, median: terraform / provider / emulator. Terraform's own is its total less the provider processes'.\n\n")
		w("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, c := range selected {
			w("| %s | ", c.label())
			for _, ph := range phases {
				tf := median(tb.values(n, c.label(), ph, func(p *phaseResult) float64 { return p.tfCPU - p.provCPU }))
				pr := median(tb.values(n, c.label(), ph, func(p *phaseResult) float64 { return p.provCPU }))
				em := median(tb.values(n, c.label(), ph, func(p *phaseResult) float64 { return p.emuCPU }))
				w("%.2f / %.2f / %.2f | ", tf, pr, em)
			}
			w("\n")
		}
		w("\nEmulator requests per resource (count / N; an operation done fewer than N/100 times shows its count, ×k).\n\n")
		w("| configuration | phase | total | submits | queries | by operation |\n|---|---|---|---|---|---|\n")
		for _, c := range selected {
			if !c.custody {
				continue
			}
			for _, ph := range phases {
				cnt, ok, varies := tb.counts(n, c.label(), ph)
				if !ok {
					w("| %s | %s | – | – | – | |\n", c.label(), ph)
					continue
				}
				note := ""
				if varies {
					note = " (runs differ; the largest shown)"
				}
				w("| %s | %s | %.2f | %.2f | %.2f | %s%s |\n", c.label(), ph, per(total(cnt), n), per(sumPrefix(cnt, "submit/"), n),
					per(sumPrefix(cnt, "query/"), n), byOp(cnt, n), note)
			}
		}
	}

	lo, hi := slices.Min(o.ns), slices.Max(o.ns)
	if hi > lo {
		w("\n## Growth from N = %d to N = %d\n\n", lo, hi)
		w("Median at %d / median at %d; linear is %.1f×.\n\n", hi, lo, float64(hi)/float64(lo))
		w("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, c := range selected {
			w("| %s | ", c.label())
			for _, ph := range phases {
				if s, ok := tb.scale(lo, hi, c.label(), ph); ok {
					w("%.2f× | ", s)
				} else {
					w("– | ")
				}
			}
			w("\n")
		}
		w("\nGrowth relative to the shaped floor's (without latency) or to the ideal's (at a latency): the growth above ÷ the floor's or the ideal's. 1.00 grows as the framework does.\n\n")
		w("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, c := range selected {
			if c.floor == "" {
				continue
			}
			w("| %s | ", c.label())
			for _, ph := range phases {
				if g, _, ok := tb.growth(o, lo, hi, c, ph); ok {
					w("%.2f | ", g)
				} else {
					w("– | ")
				}
			}
			w("\n")
		}
	}

	w("\n## Provider peak memory at N = %d\n\n", hi)
	w("Peak RSS of the provider processes (the wrapper's `ru_maxrss`), max over phases and runs; Terraform starts a provider several times per command.\n\n")
	w("| configuration | peak RSS (MiB) | provider processes per apply / plan / destroy |\n|---|---|---|\n")
	for _, c := range selected {
		if c.provider == "" {
			continue
		}
		rss, ok := tb.peakRSS(hi, c.label())
		if !ok {
			w("| %s | – | |\n", c.label())
			continue
		}
		var starts []string
		for _, ph := range phases {
			starts = append(starts, fmt.Sprintf("%.0f", median(tb.values(hi, c.label(), ph, func(p *phaseResult) float64 { return float64(p.starts) }))))
		}
		w("| %s | %.1f | %s |\n", c.label(), float64(rss)/1024, strings.Join(starts, " / "))
	}

	w("\n## Targets\n\nEach status is computed from the figures above. O(1) requests per command: besides the submits, at most %d requests at every N, and no more at the largest N than at the smallest.\n\n", perCommandCap)
	w("| target | measured | status |\n|---|---|---|\n")
	missed := 0
	row := func(target, measured string, ok, measuredAtAll bool) {
		status := "met"
		switch {
		case !measuredAtAll:
			status = "not measured"
		case !ok:
			status = "**MISSED**"
			missed++
		}
		w("| %s | %s | %s |\n", target, measured, status)
	}
	policy := configurations[slices.IndexFunc(configurations, func(c configuration) bool { return c.name == "policy" })]
	for _, n := range o.ns {
		for _, ph := range phases {
			a, okA := tb.medianWall(n, "policy", ph)
			f, okF := tb.medianWall(n, "floor-shaped", ph)
			m := "–"
			if okA && okF && f > 0 {
				m = fmt.Sprintf("%.2f× (%.2fs / %.2fs)", a/f, a, f)
			}
			row(fmt.Sprintf("policy %s at N = %d within %.2f× the shaped floor, no latency", ph, n, shapedTarget), m, okA && okF && a <= shapedTarget*f, okA && okF && f > 0)
		}
	}
	lats := latencies
	if len(lats) == 0 {
		lats = []time.Duration{50 * time.Millisecond} // the target's latency, "not measured"
	}
	for _, l := range lats {
		c := at(policy, l)
		for _, n := range o.ns {
			for _, ph := range phases {
				a, okA := tb.medianWall(n, c.label(), ph)
				id, okI := tb.ideal(o, n, c, ph)
				m := "–"
				if okA && okI && id > 0 {
					m = fmt.Sprintf("%.2f× (%.2fs / ideal %.2fs)", a/id, a, id)
				}
				row(fmt.Sprintf("policy %s at N = %d at %s within %.2f× the ideal", ph, n, l, idealTarget), m, okA && okI && a <= idealTarget*id, okA && okI && id > 0)
			}
		}
	}
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
				g, m, ok := tb.growth(o, lo, hi, c, ph)
				row(fmt.Sprintf("%s %s: growth from N = %d to %d at most %.2f× %s", c.label(), ph, lo, hi, growthTarget, against), m, ok && g <= growthTarget, ok)
			}
		}
	} else {
		row(fmt.Sprintf("growth against the shaped floor's at most %.2f×", growthTarget), "needs two values of -n", false, false)
	}
	for _, n := range o.ns {
		a, okA := tb.medianWall(n, "policy", "plan")
		u, okU := tb.medianWall(n, "policy-unchecked", "plan")
		m := "–"
		if okA && okU && u > 0 {
			m = fmt.Sprintf("%+.1f%% (%.2fs / %.2fs)", 100*(a/u-1), a, u)
		}
		row(fmt.Sprintf("policy expression checks add under %.0f%% to a plan of N = %d policies", 100*(checkTarget-1), n), m,
			okA && okU && a <= checkTarget*u, okA && okU && u > 0)
	}
	for _, c := range selected {
		if !c.custody || c.latency != 0 {
			continue
		}
		for _, ph := range phases {
			target := map[string]string{
				"apply":   "1.00 submit per resource + O(1) requests per command",
				"plan":    "O(1) requests per command",
				"destroy": "1.00 submit per resource + O(1) requests per command",
			}[ph]
			m, ok, measured := tb.requestTarget(o, c.label(), ph)
			row(fmt.Sprintf("%s %s: %s", c.label(), ph, target), m, ok, measured)
		}
	}
	var peak int64
	okPeak := false
	for _, c := range selected {
		if c.custody {
			if rss, ok := tb.peakRSS(hi, c.label()); ok {
				peak, okPeak = max(peak, rss), true
			}
		}
	}
	label := fmt.Sprintf("custody provider peak RSS at N = %d under %d MiB", hi, rssTargetKiB>>10)
	if hi != rssTargetN {
		label += fmt.Sprintf(" (the target is at N = %d)", rssTargetN)
	}
	row(label, fmt.Sprintf("%.1f MiB", float64(peak)/1024), peak < rssTargetKiB, okPeak)
	if missed > 0 {
		w("\n%d target(s) MISSED. The CPU table above says which process the time goes to; see README.md for profiling.\n", missed)
	} else {
		w("\nEvery measured target is met.\n")
	}
	// No trailing blanks: the table cells are written with "| " after each.
	lines := strings.Split(b.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
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

// requestTarget checks the requests of one phase of a configuration at
// every N: at most one submit per resource, and besides the submits at most
// perCommandCap requests, no more at the largest N than at the smallest.
func (tb table) requestTarget(o *options, label, phase string) (measured string, ok, measuredAtAll bool) {
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
			ok = ok && subs <= n
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

// opsByCount returns the operations of c with a count above zero that
// keep accepts, largest count first, then by name.
func opsByCount(c map[string]int, keep func(op string) bool) []string {
	keys := make([]string, 0, len(c))
	for k, v := range c {
		if v > 0 && keep(k) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if c[keys[i]] != c[keys[j]] {
			return c[keys[i]] > c[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// byOpCount lists the operations by count, largest first, as counts,
// leaving out those whose name starts with except.
func byOpCount(c map[string]int, except string) string {
	keys := opsByCount(c, func(op string) bool { return !strings.HasPrefix(op, except) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

func (tb table) scale(lo, hi int, cfg, phase string) (float64, bool) {
	a, okA := tb.medianWall(lo, cfg, phase)
	b, okB := tb.medianWall(hi, cfg, phase)
	if !okA || !okB || a == 0 {
		return 0, false
	}
	return b / a, true
}

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

func per(count, n int) float64 { return float64(count) / float64(n) }

// byOp lists the operations by count, largest first, as per-resource figures.
func byOp(c map[string]int, n int) string {
	keys := opsByCount(c, func(string) bool { return true })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if c[k]*100 < n { // under 0.01 per resource (once per command): the count
			parts = append(parts, fmt.Sprintf("%s ×%d", k, c[k]))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.2f", k, per(c[k], n)))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
