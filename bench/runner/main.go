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
// adopt.go); it prints a report and writes it to bench/RESULTS.md. See
// bench/README.md.
//
//	go run ./bench/runner [-n 200,1000] [-runs 3] [-parallelism 10] [-latencies 0,50ms] [-latency-configs policy] [-out bench/RESULTS.md] [-keep-going] [-keep-work]
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
		if a.err != nil {
			msg := fmt.Sprintf("%s run %d: %v", adoptName, a.run+1, a.err)
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

// phaseResult is one Terraform command of one configuration run.
type phaseResult struct {
	wall    float64        // seconds
	tfCPU   float64        // terraform's CPU seconds, providers included (they are its children)
	provCPU float64        // the provider processes' CPU seconds
	emuCPU  float64        // the emulator's CPU seconds during the command
	rssKiB  int64          // peak RSS of the provider processes
	starts  int            // provider processes started
	counts  map[string]int // emulator requests by "submit/<op>", "query/<op>"
}

type result struct {
	cfg    configuration
	n, run int
	phases map[string]*phaseResult
	err    error
}

// runOne applies, plans and destroys one configuration against a fresh
// emulator, then stops the emulator and deletes its state.
func runOne(ctx context.Context, t *tools, c configuration, n, r int, o *options) (res *result) {
	res = &result{cfg: c, n: n, run: r, phases: map[string]*phaseResult{}}
	dir := filepath.Join(t.work, "ws", fmt.Sprintf("%s-n%d-r%d", c.dirName(), n, r+1))
	emu, done, err := startWorkspace(t, dir, c.hcl(n), c.latency)
	if err != nil {
		res.err = err
		return res
	}
	defer func() { done(&res.err) }()

	env := append(cleanEnv(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE="+t.cliConfig)
	env = append(env, emu.env...)
	provider := filepath.Join(t.realDir, "terraform-provider-"+c.provider)
	profiling := o.profile != "" && c.provider == "custody"
	if profiling {
		provider += "-profiled"
	}
	if c.provider != "" {
		env = append(env, "PEAKRSS_EXEC="+provider)
	}
	par := "-parallelism=" + strconv.Itoa(o.parallelism)
	commands := map[string][]string{
		"apply":        {"apply", "-auto-approve", "-input=false", "-no-color", par},
		"plan":         {"plan", "-input=false", "-detailed-exitcode", "-no-color", par},
		"destroy":      {"destroy", "-auto-approve", "-input=false", "-no-color", par},
		renamePhase:    {"plan", "-input=false", "-detailed-exitcode", "-no-color", par, "-var", "suffix=-renamed"},
		conditionPhase: {"plan", "-input=false", "-detailed-exitcode", "-no-color", par, "-var", "limit_wei=2000"},
	}
	order := phases
	switch {
	case c.reconditions:
		order = []string{"apply", "plan", renamePhase, conditionPhase, "destroy"}
	case c.renames:
		order = []string{"apply", "plan", renamePhase, "destroy"}
	}
	for _, ph := range order {
		phaseEnv := env
		profDir := filepath.Join(o.profile, fmt.Sprintf("%s-n%d-r%d", c.dirName(), n, r+1), ph)
		if profiling {
			if res.err = os.MkdirAll(profDir, 0o755); res.err != nil {
				return res
			}
			phaseEnv = append(slices.Clip(env), "BENCH_CPUPROFILE_DIR="+profDir)
		}
		p, err := runPhase(ctx, t, emu, dir, ph, commands[ph], phaseEnv, n)
		if err != nil {
			res.err = fmt.Errorf("terraform %s: %w", ph, err)
			return res
		}
		if profiling {
			if err := summarizeProfiles(ctx, provider, profDir); err != nil {
				logf("profile of %s: %v", profDir, err)
			}
		}
		res.phases[ph] = p
		logf("N=%-5d run %d  %-16s %-7s %7.2fs  terraform %6.2fs CPU, provider %6.2fs CPU (%d starts, peak %5.1f MiB), emulator %6.2fs CPU, %d requests",
			n, r+1, c.label(), ph, p.wall, p.tfCPU-p.provCPU, p.provCPU, p.starts, float64(p.rssKiB)/1024, p.emuCPU, total(p.counts))
	}
	return res
}

func runPhase(ctx context.Context, t *tools, emu *emulatorProc, dir, phase string, args, env []string, n int) (*phaseResult, error) {
	usageFile := filepath.Join(dir, "provider-usage-"+phase)
	logPath := filepath.Join(dir, "terraform-"+phase+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer func() { _ = logFile.Close() }()
	cmd := exec.CommandContext(ctx, t.terraform, append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = append(env, "PEAKRSS_OUT="+usageFile)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute

	if err := emu.resetCounts(); err != nil {
		return nil, err
	}
	cpu0 := emu.cpuSeconds()
	t0 := time.Now()
	runErr := cmd.Run()
	p := &phaseResult{wall: time.Since(t0).Seconds()}
	p.emuCPU = emu.cpuSeconds() - cpu0
	if (phase == renamePhase || phase == conditionPhase) && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 2 {
		runErr = nil // changes planned, as it must
	}
	if runErr != nil {
		if phase == "plan" && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 2 {
			return nil, fmt.Errorf("the plan right after apply is not empty (exit 2): the figures would be a lie; see %s:%s", logPath, tail(logPath, 30))
		}
		return nil, fmt.Errorf("%v:%s", runErr, tail(logPath, 30))
	}
	if ps := cmd.ProcessState; ps != nil {
		p.tfCPU = ps.UserTime().Seconds() + ps.SystemTime().Seconds()
	}
	if p.counts, err = emu.counts(); err != nil {
		return nil, err
	}
	u, err := readUsage(usageFile)
	if err != nil {
		return nil, err
	}
	p.rssKiB, p.provCPU, p.starts = u.maxRSSKiB, u.cpu, u.starts
	out, err := os.ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	want := map[string]string{
		"apply":        fmt.Sprintf("Apply complete! Resources: %d added, 0 changed, 0 destroyed.", n),
		"destroy":      fmt.Sprintf("Destroy complete! Resources: %d destroyed.", n),
		"plan":         "No changes.",
		renamePhase:    fmt.Sprintf("Plan: 0 to add, %d to change, 0 to destroy.", n),
		conditionPhase: fmt.Sprintf("Plan: 0 to add, %d to change, 0 to destroy.", n),
	}[phase]
	if !strings.Contains(string(out), want) {
		return nil, fmt.Errorf("the output lacks %q; see %s:%s", want, logPath, tail(logPath, 30))
	}
	return p, nil
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
