package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// One run of one configuration: apply, a refresh plan and destroy against
// a fresh emulator, each Terraform command timed and its requests counted.

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
