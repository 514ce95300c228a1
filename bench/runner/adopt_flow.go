package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// What the adopt row's two flows (adopt.go, adopt_query.go) have in
// common: a fresh working directory and emulator with the organization
// made in it, then each step's commands in order, a check of what each
// step left, and a log line per step. The flows differ in their commands
// and in what they check, not in how a step runs, fails or is recorded;
// one loop keeps their errors and logs alike.

// adoptFlow is one flow of one run of the adopt row.
type adoptFlow struct {
	what      string            // how its errors begin: "adopt", "adopt query"
	label     string            // before a step's name in the log
	dir       string            // its working directory, made afresh
	hcl       string            // the directory's main.tf
	files     map[string]string // the directory's other files, by name
	terraform string            // the CLI that runs the commands ("": the runner's)
	order     []string          // the steps: the total's, then the check
	cmds      map[string][]tfCommand
	// populated, when set, is told how long making the organization took.
	populated func(seconds float64)
	// check is called with each step's log once it has run; its error
	// fails the run.
	check func(step, log string) error
}

// run is run r (from 0) of the flow: a fresh emulator with the
// organization made in it through the client, then the steps, into steps,
// up to the first that fails. Its working directory stays when it fails.
func (f *adoptFlow) run(ctx context.Context, t *tools, r int, steps map[string]*phaseResult) (err error) {
	emu, done, err := startWorkspace(t, f.dir, f.hcl, 0)
	if err != nil {
		return err
	}
	defer done(&err)
	for name, body := range f.files {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o600); err != nil {
			return err
		}
	}
	c, err := emulatorClient(emu.env)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := populate(ctx, c); err != nil {
		return err
	}
	if f.populated != nil {
		f.populated(time.Since(t0).Seconds())
	}
	tl := *t
	if f.terraform != "" {
		tl.terraform = f.terraform
	}
	env := adoptEnv(t, emu)
	for _, st := range f.order {
		p, log, err := runSteps(ctx, &tl, emu, f.dir, st, f.cmds[st], env)
		if err == nil {
			steps[st] = p
			err = f.check(st, log)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", f.what, st, err)
		}
		logAdoptStep(r, f.label+st, p)
	}
	return nil
}

// importBlocksIn counts the import blocks of file in dir; fewer than the
// policies, tags and endpoints made is an error.
func importBlocksIn(dir, file string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0, err
	}
	n := countImportBlocks(string(b))
	if n < adoptObjects {
		return n, fmt.Errorf("%s holds %d import blocks, fewer than the %d policies, tags and endpoints", file, n, adoptObjects)
	}
	return n, nil
}

// logAdoptStep logs one step of adopt run r (from 0), as it ends.
func logAdoptStep(r int, step string, p *phaseResult) {
	logf("adopt run %d  %-8s %7.2fs  terraform %6.2fs CPU, provider %6.2fs CPU (%d starts, peak %5.1f MiB), emulator %6.2fs CPU, %d requests",
		r+1, step, p.wall, p.tfCPU-p.provCPU, p.provCPU, p.starts, float64(p.rssKiB)/1024, p.emuCPU, total(p.counts))
}
