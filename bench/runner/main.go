// Command runner is the benchmark behind `make bench`: it times terraform
// apply, a refresh plan and destroy of N custody_policy resources against
// floors (bench/floor: floor_policy with custody_policy's schema and no
// I/O, and floor_item with one attribute; and Terraform's built-in
// terraform_data), and of N private key tags and N webhook endpoints, each
// against a fresh custody-emulator process, without latency and, for
// -latency-configs, with the emulator delaying every request
// (-latencies); it counts the emulator's requests per resource and the
// provider's peak memory; it times the adoption of an organization of
// 300 policies, 30 tags and 10 webhook endpoints (the adopt row,
// adopt.go, and with terraform query, adopt_query.go); it prints a report and writes it to bench/RESULTS.md. See
// bench/README.md.
//
//	go run ./bench/runner [-n 200,1000] [-runs 3] [-parallelism 10] [-latencies 0,50ms] [-latency-configs policy] [-query-cli PATH] [-out bench/RESULTS.md] [-keep-going] [-keep-work]
//
// It exits 0 when every command succeeded, whether or not the targets are
// met (the report says which are), and non-zero when any command failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	ns          []int
	runs        int
	parallelism int
	out         string
	keepGoing   bool
	// goBenchCount: runs of each Go benchmark of the decision code (0: none)
	goBenchCount int
	keepWork     bool
	profile      string // directory for CPU profiles of the custody provider, or ""
	configs      map[string]bool
	adopt        bool            // the adopt row (adopt.go), selected in -configs like a configuration
	latencies    []time.Duration // emulator latencies; 0 first, always there
	latencyCfgs  map[string]bool // the configurations also run at the latencies other than 0
	queryCLI     string          // -query-cli: the CLI of the adopt row's terraform query flow, "" to choose, "none"
	query        queryFlow       // that flow's CLI and files, or why it does not run (prepareQuery)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
		os.Exit(1)
	}
}

func parseOptions(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	n := fs.String("n", "200,1000", "comma-separated resource counts N")
	var names []string
	for _, c := range configurations {
		names = append(names, c.name)
	}
	known := append(slices.Clone(names), adoptName)
	only := fs.String("configs", strings.Join(known, ","), "comma-separated configurations to run (the targets need policy and floor-shaped; adopt is the adoption of an organization, not N resources)")
	lats := fs.String("latencies", "0,50ms", "comma-separated emulator latencies (-fault-latency of every request) to run -latency-configs at; every configuration runs at 0, which must be in the list")
	latOnly := fs.String("latency-configs", "policy,policy-nobatch,policy-batched", "comma-separated configurations that talk to the emulator to run at each non-zero -latencies value too")
	fs.IntVar(&o.runs, "runs", 3, "runs of every configuration at every N")
	fs.IntVar(&o.parallelism, "parallelism", 10, "terraform -parallelism for every apply, plan and destroy")
	fs.StringVar(&o.out, "out", "bench/RESULTS.md", "where to write the report (relative to the module root)")
	fs.IntVar(&o.goBenchCount, "go-bench-count", 5, "runs of each Go benchmark of the policy decision code (policy_decision, the lockout guard); 0 skips them")
	fs.BoolVar(&o.keepGoing, "keep-going", false, "after a failed command, go on with the next configuration (still exits non-zero)")
	fs.BoolVar(&o.keepWork, "keep-work", false, "keep the temporary work directory (binaries, configurations, logs)")
	fs.StringVar(&o.queryCLI, "query-cli", "", "the `terraform` (>= 1.14) of the adopt row's terraform query flow; default: the first CLI of "+
		"$CUSTODY_TEST_CLIS that has query, else the terraform on PATH if it has; none: leave the flow out (the report says so)")
	fs.StringVar(&o.profile, "profile", "", "run the custody provider with a CPU profile (bench/profiled) and write the profiles and their top functions to this `directory`; the timings are then not the benchmark's")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, s := range strings.Split(*n, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("-n %q: a comma-separated list of positive counts", *n)
		}
		o.ns = append(o.ns, v)
	}
	o.configs = map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		switch {
		case s == adoptName:
			o.adopt = true
		case !slices.Contains(names, s):
			return nil, fmt.Errorf("-configs: unknown configuration %q (known: %s)", s, strings.Join(known, ", "))
		default:
			o.configs[s] = true
		}
	}
	for _, s := range strings.Split(*lats, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("-latencies %q: a comma-separated list of durations such as 0,50ms", *lats)
		}
		if !slices.Contains(o.latencies, d) {
			o.latencies = append(o.latencies, d)
		}
	}
	if !slices.Contains(o.latencies, 0) {
		return nil, fmt.Errorf("-latencies %q: 0 must be in the list; every configuration runs there, and the ideal at a latency is built from the shaped floor's times at 0", *lats)
	}
	slices.Sort(o.latencies)
	o.latencyCfgs = map[string]bool{}
	for _, s := range strings.Split(*latOnly, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		i := slices.IndexFunc(configurations, func(c configuration) bool { return c.name == s })
		switch {
		case i < 0:
			return nil, fmt.Errorf("-latency-configs: unknown configuration %q (known: %s)", s, strings.Join(names, ", "))
		case !configurations[i].custody:
			return nil, fmt.Errorf("-latency-configs: %s does not talk to the emulator, so latency does not change its times; its figures at 0 serve at every latency", s)
		}
		o.latencyCfgs[s] = true
	}
	if o.profile != "" {
		abs, err := filepath.Abs(o.profile)
		if err != nil {
			return nil, err
		}
		o.profile = abs
	}
	if o.runs < 1 || o.parallelism < 1 {
		return nil, errors.New("-runs and -parallelism must be at least 1")
	}
	return o, nil
}

func run(ctx context.Context, args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	start := time.Now()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "custody-bench-")
	if err != nil {
		return err
	}
	if o.keepWork {
		logf("work directory %s (kept)", work)
	} else {
		defer func() { _ = os.RemoveAll(work) }()
	}
	onPath, _ := exec.LookPath("terraform") // build says so if there is none
	if err := prepareQuery(ctx, o, root, onPath); err != nil {
		return err
	}
	logf("building the provider, the floor, the emulator and the wrapper into %s", work)
	t, err := build(ctx, root, work, o.profile != "")
	if err != nil {
		return err
	}
	env := describeEnvironment(ctx, root, t)

	var results []*result
	var failed []string
	for _, n := range o.ns {
		for r := range o.runs {
			for _, c := range rotated(o.selected(), r) {
				if err := ctx.Err(); err != nil {
					return err
				}
				res := runOne(ctx, t, c, n, r, o)
				results = append(results, res)
				if res.err != nil {
					msg := fmt.Sprintf("%s N=%d run %d: %v", c.label(), n, r+1, res.err)
					failed = append(failed, msg)
					logf("FAILED %s", msg)
					if !o.keepGoing {
						return errors.New(msg)
					}
				}
			}
		}
	}
	adopts := runAdopts(ctx, t, o)
	for _, a := range adopts {
		for _, msg := range a.failures() {
			failed = append(failed, msg)
			logf("FAILED %s", msg)
			if !o.keepGoing {
				return errors.New(msg)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var singles []*result
	if len(failed) == 0 {
		logf("single creates, with batching and without")
		if singles, err = singleCreates(ctx, t, o); err != nil {
			failed = append(failed, err.Error())
			logf("FAILED %v", err)
			if !o.keepGoing {
				return err
			}
		}
	}
	var goBench []goBenchmark
	if o.goBenchCount > 0 {
		logf("go test -bench of the policy decision code (%d runs each)", o.goBenchCount)
		if goBench, err = runGoBenchmarks(ctx, root, o.goBenchCount); err != nil {
			return err
		}
	}
	rep := report(o, env, results, singles, adopts, goBench, failed, time.Since(start))
	fmt.Print(rep)
	out := o.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	if err := os.WriteFile(out, []byte(rep), 0o644); err != nil {
		return err
	}
	logf("wrote %s in %s", out, time.Since(start).Round(time.Second))
	if len(failed) > 0 {
		return fmt.Errorf("%d configuration runs failed", len(failed))
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// moduleRoot is the directory of the module's go.mod: builds run there and
// -out is relative to it, wherever the runner is started from.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the module: run from the repository")
	}
	return filepath.Dir(gomod), nil
}

// selected are the configurations -configs chose, in their usual order, at
// latency 0, then those of -latency-configs at each other latency.
func (o *options) selected() []configuration {
	var out []configuration
	for _, l := range o.latencies {
		for _, c := range configurations {
			if o.configs[c.name] && (l == 0 || o.latencyCfgs[c.name]) {
				c.latency = l
				out = append(out, c)
			}
		}
	}
	return out
}
