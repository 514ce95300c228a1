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

// Targets of the issue.
const (
	ratioTarget   = 1.25  // policy / floor, every phase, every N
	scaleSlack    = 1.1   // 200 -> 1000 at most 5.5x: 1.1 times linear
	rssTargetByte = 100e6 // provider peak RSS at the largest N, bytes (100 MB)
	checkTarget   = 1.05  // policy / policy-unchecked plan: the expression checks add under 5%
	pollOp        = "query/get_activity"
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

func (tb table) runs(n int, cfg string) []*result {
	var out []*result
	for _, r := range tb.results {
		if r.err == nil && r.n == n && r.cfg.name == cfg {
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

func report(o *options, env environment, results []*result, failed []string, elapsed time.Duration) string {
	tb := table{ns: o.ns, results: results}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	w("# Benchmark results\n\n")
	w("Written by `make bench` (`go run ./bench/runner`); see [README.md](README.md) for what is measured and how.\n\n")
	w("- date: %s; the whole run took %s\n", env.date, elapsed.Round(time.Second))
	w("- machine: %s; %s CPUs (%s); MemTotal %s; GOMAXPROCS of the runner %d\n", env.uname, env.cpus, env.cpuModel, env.mem, runtime.GOMAXPROCS(0))
	w("- versions: %s; %s; %s; commit %s\n", env.goVersion, env.tfVersion, strings.Join(env.modules, ", "), env.commit)
	ns := make([]string, len(o.ns))
	for i, n := range o.ns {
		ns[i] = fmt.Sprint(n)
	}
	w("- parameters: N = %s; %d run(s) of each configuration at each N, in an order that rotates between runs; `-parallelism=%d` for every apply, plan and destroy; a fresh emulator (`-state`) per configuration run\n",
		strings.Join(ns, ", "), o.runs, o.parallelism)
	w("- configurations: ")
	for i, c := range o.selected() {
		if i > 0 {
			w(", ")
		}
		w("`%s` (N `%s`)", c.name, c.resource)
	}
	w("\n")
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
		for _, c := range o.selected() {
			w("| %s | ", c.name)
			for _, ph := range phases {
				v := tb.values(n, c.name, ph, wall)
				if len(v) == 0 {
					w("– | ")
					continue
				}
				w("%.2f (%.2f–%.2f) | ", median(v), slices.Min(v), slices.Max(v))
			}
			w("\n")
		}
		w("\nRatios of the medians.\n\n| ratio | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, pair := range [][2]string{{"policy", "floor"}, {"policy", "terraform_data"}, {"policy", "policy-unchecked"}, {"tag", "floor"}, {"webhook", "floor"}, {"floor", "terraform_data"}} {
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
		w("\nCPU seconds, median: terraform / provider / emulator. Terraform's own is its total less the provider processes'.\n\n")
		w("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, c := range o.selected() {
			w("| %s | ", c.name)
			for _, ph := range phases {
				tf := median(tb.values(n, c.name, ph, func(p *phaseResult) float64 { return p.tfCPU - p.provCPU }))
				pr := median(tb.values(n, c.name, ph, func(p *phaseResult) float64 { return p.provCPU }))
				em := median(tb.values(n, c.name, ph, func(p *phaseResult) float64 { return p.emuCPU }))
				w("%.2f / %.2f / %.2f | ", tf, pr, em)
			}
			w("\n")
		}
		w("\nEmulator requests per resource (count / N).\n\n")
		w("| configuration | phase | total | submits | queries | by operation |\n|---|---|---|---|---|---|\n")
		for _, c := range o.selected() {
			if !c.custody {
				continue
			}
			for _, ph := range phases {
				cnt, ok, varies := tb.counts(n, c.name, ph)
				if !ok {
					w("| %s | %s | – | – | – | |\n", c.name, ph)
					continue
				}
				note := ""
				if varies {
					note = " (runs differ; the largest shown)"
				}
				w("| %s | %s | %.2f | %.2f | %.2f | %s%s |\n", c.name, ph, per(total(cnt), n), per(sumPrefix(cnt, "submit/"), n),
					per(sumPrefix(cnt, "query/"), n), byOp(cnt, n), note)
			}
		}
	}

	lo, hi := slices.Min(o.ns), slices.Max(o.ns)
	scaleLimit := scaleSlack * float64(hi) / float64(lo)
	if hi > lo {
		w("\n## Scaling from N = %d to N = %d\n\n", lo, hi)
		w("Median at %d / median at %d; linear is %.1f×, the target at most %.2f×.\n\n", hi, lo, float64(hi)/float64(lo), scaleLimit)
		w("| configuration | apply | plan | destroy |\n|---|---|---|---|\n")
		for _, c := range o.selected() {
			w("| %s | ", c.name)
			for _, ph := range phases {
				if s, ok := tb.scale(lo, hi, c.name, ph); ok {
					w("%.2f× | ", s)
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
	for _, c := range o.selected() {
		if c.provider == "" {
			continue
		}
		rss, ok := tb.peakRSS(hi, c.name)
		if !ok {
			w("| %s | – | |\n", c.name)
			continue
		}
		var starts []string
		for _, ph := range phases {
			starts = append(starts, fmt.Sprintf("%.0f", median(tb.values(hi, c.name, ph, func(p *phaseResult) float64 { return float64(p.starts) }))))
		}
		w("| %s | %.1f | %s |\n", c.name, float64(rss)/1024, strings.Join(starts, " / "))
	}

	w("\n## Targets\n\n| target | measured | status |\n|---|---|---|\n")
	missed := 0
	row := func(target, measured string, ok, measuredAtAll bool) {
		status := "MET"
		switch {
		case !measuredAtAll:
			status = "not measured"
		case !ok:
			status = "**MISSED**"
			missed++
		}
		w("| %s | %s | %s |\n", target, measured, status)
	}
	for _, n := range o.ns {
		for _, ph := range phases {
			a, okA := tb.medianWall(n, "policy", ph)
			f, okF := tb.medianWall(n, "floor", ph)
			td, okT := tb.medianWall(n, "terraform_data", ph)
			m := "–"
			if okA && okF && f > 0 {
				m = fmt.Sprintf("%.2f× (%.2fs / %.2fs)", a/f, a, f)
				if okT && td > 0 {
					m += fmt.Sprintf("; %.2f× terraform_data", a/td)
				}
			}
			row(fmt.Sprintf("policy %s at N = %d within %.2f× the framework floor", ph, n, ratioTarget), m, okA && okF && a <= ratioTarget*f, okA && okF && f > 0)
		}
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
	if hi > lo {
		for _, c := range o.selected() {
			if !c.custody {
				continue
			}
			for _, ph := range phases {
				s, ok := tb.scale(lo, hi, c.name, ph)
				row(fmt.Sprintf("%s %s from N = %d to %d at most %.2f×", c.name, ph, lo, hi, scaleLimit), fmt.Sprintf("%.2f×", s), s <= scaleLimit, ok)
			}
		}
	} else {
		row("scaling 200 → 1000 at most 5.5×", "needs two values of -n", false, false)
	}
	for _, c := range o.selected() {
		if !c.custody {
			continue
		}
		for _, n := range o.ns {
			cnt, ok, _ := tb.counts(n, c.name, "plan")
			row(fmt.Sprintf("%s refresh (plan) at N = %d: at most 1 request per resource", c.name, n),
				fmt.Sprintf("%.2f (%s)", per(total(cnt), n), byOp(cnt, n)), ok && total(cnt) <= n, ok)
			for _, ph := range []string{"apply", "destroy"} {
				cnt, ok, _ := tb.counts(n, c.name, ph)
				subs, polls := sumPrefix(cnt, "submit/"), cnt[pollOp]
				what := map[string]string{"apply": "create", "destroy": "delete"}[ph]
				m := fmt.Sprintf("%.2f submits, %.2f polls per resource", per(subs, n), per(polls, n))
				if q := sumPrefix(cnt, "query/") - polls; q > 0 {
					m += fmt.Sprintf("; also %.2f other queries (%s)", per(q, n), byOp(onlyPrefix(cnt, "query/", pollOp), n))
				}
				row(fmt.Sprintf("%s %s at N = %d: 1 submit per %s, no polls (no activity is left pending: root quorum 1)", c.name, ph, n, what),
					m, ok && subs <= n && polls == 0, ok)
			}
		}
	}
	var peak int64
	okPeak := false
	for _, c := range o.selected() {
		if c.custody {
			if rss, ok := tb.peakRSS(hi, c.name); ok {
				peak, okPeak = max(peak, rss), true
			}
		}
	}
	label := fmt.Sprintf("custody provider peak RSS at N = %d under 100 MB", hi)
	if hi != 1000 {
		label += " (the target is at N = 1000)"
	}
	row(label, fmt.Sprintf("%.1f MiB (%.1f MB)", float64(peak)/1024, float64(peak)*1024/1e6), float64(peak)*1024 < rssTargetByte, okPeak)
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
	keys := make([]string, 0, len(c))
	for k, v := range c {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if c[keys[i]] != c[keys[j]] {
			return c[keys[i]] > c[keys[j]]
		}
		return keys[i] < keys[j]
	})
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

func onlyPrefix(c map[string]int, prefix, except string) map[string]int {
	out := map[string]int{}
	for k, v := range c {
		if strings.HasPrefix(k, prefix) && k != except {
			out[k] = v
		}
	}
	return out
}
