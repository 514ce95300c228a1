package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// What the policy decisions cost: the lockout guard in a plan that renames
// every policy (renamePhase, policy against policy-noguard), and the
// policy_decision function over 1,000 policies (Go benchmarks).

const (
	guardTarget    = 1.05 // policy / policy-noguard, renamePhase: the guard adds under 5%
	guardTargetN   = 1000
	functionTarget = 5.0 // ms, policy_decision over 1,000 policies and one request
)

// goBenchmark is one line of `go test -bench` output.
type goBenchmark struct {
	name               string
	nsPerOp            float64
	bytesOp, allocsOps int64
}

// goBenchmarks are the Go benchmarks of the decision code, in the report's
// order, with what each measures: the function warm and cold, the guard's
// own work in a plan, and one changed policy's access report warm and cold
// (issue 31).
var goBenchmarks = []struct{ name, what string }{
	{"PolicyDecisionWarm", "`policy_decision` over 1,000 policies (as `values(custody_policy.x)` passes them) and one request, from the protocol's values to the result; expressions already compiled in the process"},
	{"PolicyDecisionCold", "the same with 1,000 policies whose expressions the process has never seen: every expression is compiled"},
	{"LockoutGuardPlan", "the guard's own work in a plan of 1,000 policy updates: its baseline (whoami, the cached list, 3 × 1,000 evaluations) and 1,000 checks"},
	{"ReportWarm", "`internal/policyset/review`: one changed policy's access report among 1,000 distinct policies, the organization's outcomes already computed in the command"},
	{"ReportCold", "the same from the protocol's values to the diagnostics, nothing computed before"},
}

// functionBenchmarks is the -bench pattern of goBenchmarks.
var functionBenchmarks = func() string {
	names := make([]string, len(goBenchmarks))
	for i, b := range goBenchmarks {
		names[i] = b.name
	}
	return "^Benchmark(" + strings.Join(names, "|") + ")$"
}()

// benchmarkPackages are the packages functionBenchmarks are in: the
// provider, and the access review's pure core.
var benchmarkPackages = []string{"./internal/provider/", "./internal/policyset/review/"}

// runGoBenchmarks runs functionBenchmarks in benchmarkPackages, count
// times each, and returns the lines in order.
func runGoBenchmarks(ctx context.Context, root string, count int) ([]goBenchmark, error) {
	args := append([]string{"test", "-run", "^$", "-bench", functionBenchmarks, "-benchmem", "-count", strconv.Itoa(count)}, benchmarkPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`^Benchmark(\w+)-\d+\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op`)
	var got []goBenchmark
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseInt(m[3], 10, 64)
		a, _ := strconv.ParseInt(m[4], 10, 64)
		got = append(got, goBenchmark{name: m[1], nsPerOp: ns, bytesOp: b, allocsOps: a})
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("go test -bench printed no benchmark:\n%s", out)
	}
	return got, nil
}

// msOf is the median ms/op of the runs of one Go benchmark.
func msOf(bs []goBenchmark, name string) ([]float64, bool) {
	var v []float64
	for _, b := range bs {
		if b.name == name {
			v = append(v, b.nsPerOp/1e6)
		}
	}
	return v, len(v) > 0
}

// decisionCosts is the section on the guard and the function.
func (r *reportWriter) decisionCosts() {
	r.printf("\n## Policy decisions\n\n")
	if !r.o.configs["policy"] && !r.o.configs["policy-noguard"] {
		r.printf("The lockout guard's plans did not run (neither `policy` nor `policy-noguard` in -configs).\n")
		r.goBenchTable()
		return
	}
	r.printf("The lockout guard works in a plan that changes policies: `%s` renames all N policies (`-var suffix=-renamed`), one guard check per policy, after a refresh whose one `list_policies` the guard reuses. `policy-noguard` is the same provider built with the tag `bench_nolockoutguard`.\n\n", renamePhase)
	r.printf("| N | configuration | %s wall (s), median (min–max) | requests |\n|---|---|---|---|\n", renamePhase)
	for _, n := range r.o.ns {
		for _, c := range []string{"policy", "policy-noguard"} {
			v := r.tb.values(n, c, renamePhase, wall)
			if len(v) == 0 {
				continue
			}
			cnt, _, _ := r.tb.counts(n, c, renamePhase)
			r.printf("| %d | %s | %s | %s |\n", n, c, spreadPrec(v, 2), allOps(cnt))
		}
	}
	r.goBenchTable()
}

// goBenchTable is the table of the Go benchmarks of the decision code.
func (r *reportWriter) goBenchTable() {
	if len(r.goBench) == 0 {
		r.printf("\nThe Go benchmarks did not run (-go-bench-count 0).\n")
		return
	}
	r.printf("\nGo benchmarks (`go test -bench '%s' -benchmem %s`), ms per call, median (min–max) over runs:\n\n", functionBenchmarks, strings.Join(benchmarkPackages, " "))
	r.printf("| benchmark | what it measures | ms/op | B/op | allocs/op |\n|---|---|---|---|---|\n")
	for _, b := range goBenchmarks {
		name := b.name
		v, ok := msOf(r.goBench, name)
		if !ok {
			continue
		}
		var last goBenchmark
		for _, run := range r.goBench {
			if run.name == name {
				last = run
			}
		}
		r.printf("| %s | %s | %s | %d | %d |\n", name, b.what, spreadPrec(v, 3), last.bytesOp, last.allocsOps)
	}
}

// decisionTargets: the guard within guardTarget of the plan without it,
// with the same requests; the function under functionTarget warm.
func (r *reportWriter) decisionTargets() {
	n := guardTargetN
	a, okA := r.tb.medianWall(n, "policy", renamePhase)
	u, okU := r.tb.medianWall(n, "policy-noguard", renamePhase)
	m := "–"
	if okA && okU && u > 0 {
		m = fmt.Sprintf("%+.1f%% (%.2fs / %.2fs)", 100*(a/u-1), a, u)
	}
	r.row(fmt.Sprintf("lockout guard: a plan that renames N = %d policies within %.0f%% of the same plan without the guard", n, 100*(guardTarget-1)),
		m, okA && okU && a <= guardTarget*u, okA && okU && u > 0)
	r.sameRequestsRow(fmt.Sprintf("lockout guard adds no request to that plan (N = %d)", n), n, renamePhase, "policy", "policy-noguard", "without the guard")
	r.goBenchRow(fmt.Sprintf("policy_decision over 1,000 policies and one request under %.0f ms (warm; cold is in the table above)", functionTarget),
		"PolicyDecisionWarm", functionTarget)
}

// sameRequestsRow is the row of target: in phase at N = n, configuration a
// makes the same requests as without (named withoutWords).
func (r *reportWriter) sameRequestsRow(target string, n int, phase, a, without, withoutWords string) {
	ca, foundA, _ := r.tb.counts(n, a, phase)
	cu, foundU, _ := r.tb.counts(n, without, phase)
	m := "–"
	if foundA && foundU {
		m = fmt.Sprintf("%s; %s %s", allOps(ca), withoutWords, allOps(cu))
	}
	r.row(target, m, foundA && foundU && maps.Equal(ca, cu), foundA && foundU)
}

// goBenchRow is the row of target: the Go benchmark name's median under
// limitMs milliseconds.
func (r *reportWriter) goBenchRow(target, name string, limitMs float64) {
	v, ok := msOf(r.goBench, name)
	m := "–"
	if ok {
		m = fmt.Sprintf("%.2f ms (median of %d)", median(v), len(v))
	}
	r.row(target, m, ok && median(v) < limitMs, ok)
}

// spreadPrec is "median (min–max)" with prec decimals.
func spreadPrec(v []float64, prec int) string {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	f := "%." + strconv.Itoa(prec) + "f"
	return fmt.Sprintf(f+" ("+f+"–"+f+")", median(v), lo, hi)
}

// allOps lists every operation by count, largest first.
func allOps(c map[string]int) string {
	if len(c) == 0 {
		return "none"
	}
	return byOpCount(c, "\x00")
}
