package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tools are the binaries the benchmark builds into its work directory.
type tools struct {
	work       string
	realDir    string // the real providers
	wrapperDir string // peakrss under each provider's name: the dev_overrides directory
	emulator   string
	cliConfig  string
	terraform  string
}

// build compiles the provider, the floor, the emulator and the wrapper.
func build(ctx context.Context, root, work string, profiled bool) (*tools, error) {
	t := &tools{work: work, realDir: filepath.Join(work, "real"), wrapperDir: filepath.Join(work, "bin"),
		emulator: filepath.Join(work, "emulator", "custody-emulator"), cliConfig: filepath.Join(work, "terraformrc")}
	var err error
	if t.terraform, err = exec.LookPath("terraform"); err != nil {
		return nil, errors.New("terraform not found on PATH")
	}
	// {output, package, build tags}
	builds := [][3]string{
		{filepath.Join(t.realDir, "terraform-provider-custody"), ".", ""},
		// The provider without its plan-time policy expression checks: the
		// policy-unchecked configuration measures what they cost.
		{filepath.Join(t.realDir, "terraform-provider-custody-unchecked"), ".", "bench_nopolicycheck"},
		// The provider without its lockout guard: the policy-noguard
		// configuration measures what the guard adds to a plan of changes.
		{filepath.Join(t.realDir, "terraform-provider-custody-noguard"), ".", "bench_nolockoutguard"},
		// The provider without its access review (issue 31): the
		// policy-noreview configuration measures what the review adds to a
		// plan of changes.
		{filepath.Join(t.realDir, "terraform-provider-custody-noreview"), ".", "bench_noaccessreview"},
		{filepath.Join(t.realDir, "terraform-provider-floor"), "./bench/floor", ""},
		// The floor served the way the custody provider is, for the shaped
		// floor (see bench/floor/main.go).
		{filepath.Join(t.realDir, "terraform-provider-floor-likecustody"), "./bench/floor", "bench_likecustody"},
		{t.emulator, "./cmd/custody-emulator", ""},
		{filepath.Join(t.wrapperDir, "terraform-provider-custody"), "./bench/peakrss", ""},
		{filepath.Join(t.wrapperDir, "terraform-provider-floor"), "./bench/peakrss", ""},
	}
	if profiled {
		builds = append(builds, [3]string{filepath.Join(t.realDir, "terraform-provider-custody-profiled"), "./bench/profiled", ""})
	}
	for _, b := range builds {
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", b[2], "-o", b[0], b[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build -tags %q -o %s %s: %v\n%s", b[2], b[0], b[1], err, out)
		}
	}
	rc := fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/custody-labs/custody" = %[1]q
    "registry.terraform.io/custody-labs/floor"   = %[1]q
    "registry.opentofu.org/custody-labs/custody" = %[1]q
    "registry.opentofu.org/custody-labs/floor"   = %[1]q
  }
  direct {}
}
`, t.wrapperDir)
	return t, os.WriteFile(t.cliConfig, []byte(rc), 0o600)
}

// emulatorProc is one running custody-emulator.
type emulatorProc struct {
	cmd     *exec.Cmd
	dir     string
	env     []string // CUSTODY_* credentials
	baseURL string
	exited  chan struct{} // closed when the process has been waited for
}

var exportWord = regexp.MustCompile(`^(CUSTODY_[A-Z0-9_]+)=(.*)$`)

// startEmulator starts a fresh emulator, its logs in dir, and waits for
// its export line. A latency above 0 delays every submit and query by
// that much (-fault-latency); the debug endpoints are never delayed.
//
// The emulator keeps its state in memory (no -state): writing the state
// file is the emulator's own cost, not the provider's, and on a machine
// of two cores it took CPU from Terraform and the provider (7 of the 18
// CPU seconds an apply of 1000 policies cost). The ideal this benchmark
// measures against is a service that answers in exactly the round trip.
// startWorkspace makes the working directory dir with hcl as its main.tf
// and starts an emulator in it. done, deferred by the caller with the
// run's error, stops the emulator and deletes its state, and deletes dir
// when the run succeeded (a failed run's directory is kept to look at); a
// failure of its own becomes the run's error if it had none.
func startWorkspace(t *tools, dir, hcl string, latency time.Duration) (*emulatorProc, func(runErr *error), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o600); err != nil {
		return nil, nil, err
	}
	emu, err := startEmulator(t, filepath.Join(dir, "emulator"), latency)
	if err != nil {
		return nil, nil, err
	}
	return emu, func(runErr *error) {
		if err := emu.stop(); err != nil && *runErr == nil {
			*runErr = err
		}
		if err := os.RemoveAll(emu.dir); err != nil && *runErr == nil {
			*runErr = err
		}
		if *runErr == nil {
			_ = os.RemoveAll(dir)
		}
	}, nil
}

func startEmulator(t *tools, dir string, latency time.Duration) (*emulatorProc, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	stdout, err := os.Create(filepath.Join(dir, "emulator.stdout"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = stdout.Close() }()
	stderr, err := os.Create(filepath.Join(dir, "emulator.stderr"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = stderr.Close() }()
	envFile := filepath.Join(dir, "env")
	args := []string{"-listen", "127.0.0.1:0", "-env-file", envFile}
	if latency > 0 {
		args = append(args, "-fault-latency", latency.String())
	}
	cmd := exec.Command(t.emulator, args...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = stdout, stderr, dir
	cmd.Env = cleanEnv()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	e := &emulatorProc{cmd: cmd, dir: dir, exited: exited}
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(stdout.Name())
		if strings.Contains(string(b), "\nexport CUSTODY_BASE_URL=") {
			break
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("the emulator exited before printing its export line: %s", tail(filepath.Join(dir, "emulator.stderr"), 20))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = e.stop()
			return nil, errors.New("the emulator printed no export line within 30s")
		}
	}
	// The env file is written before the export line is printed.
	f, err := os.ReadFile(envFile)
	if err != nil {
		_ = e.stop()
		return nil, err
	}
	for _, line := range strings.Split(string(f), "\n") {
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		for _, w := range strings.Fields(rest) {
			m := exportWord.FindStringSubmatch(w)
			if m == nil {
				_ = e.stop()
				return nil, fmt.Errorf("unexpected word %q in the emulator's env file", w)
			}
			v := strings.Trim(m[2], `'"`)
			e.env = append(e.env, m[1]+"="+v)
			if m[1] == "CUSTODY_BASE_URL" {
				e.baseURL = v
			}
		}
	}
	if e.baseURL == "" {
		_ = e.stop()
		return nil, errors.New("the emulator's env file sets no CUSTODY_BASE_URL")
	}
	return e, nil
}

// stop ends the emulator with SIGTERM (SIGKILL after 15s).
func (e *emulatorProc) stop() (err error) {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.exited:
	case <-time.After(15 * time.Second):
		_ = e.cmd.Process.Kill()
		<-e.exited
		err = errors.New("the emulator did not stop within 15s of SIGTERM; killed")
	}
	if ps := e.cmd.ProcessState; ps != nil && err == nil && !ps.Success() {
		err = fmt.Errorf("the emulator exited with %v: %s", ps, tail(filepath.Join(e.dir, "emulator.stderr"), 10))
	}
	return err
}

// cpuSeconds reads the emulator's user+system CPU time so far.
func (e *emulatorProc) cpuSeconds() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command name (which may hold spaces) in ")".
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64) // field 14, utime
	st, _ := strconv.ParseFloat(f[12], 64) // field 15, stime
	return (ut + st) / clockTicks
}

// clockTicks is sysconf(_SC_CLK_TCK), 100 on every Linux the benchmark
// runs on; getconf says otherwise if needed.
var clockTicks = func() float64 {
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && v > 0 {
			return v
		}
	}
	return 100
}()

var httpClient = &http.Client{Timeout: 30 * time.Second}

func (e *emulatorProc) resetCounts() error {
	resp, err := httpClient.Post(e.baseURL+"/debug/requests/reset", "application/json", nil)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("POST /debug/requests/reset: %s", resp.Status)
	}
	return nil
}

func (e *emulatorProc) counts() (map[string]int, error) {
	resp, err := httpClient.Get(e.baseURL + "/debug/requests")
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /debug/requests: %s", resp.Status)
	}
	var c map[string]int
	return c, json.NewDecoder(resp.Body).Decode(&c)
}

// cleanEnv is this process's environment without anything that would
// change what Terraform, a provider or the emulator does: TF_*, CUSTODY_*
// and PEAKRSS_* variables are dropped (TF_LOG above all).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "CUSTODY_") || strings.HasPrefix(kv, "PEAKRSS_") ||
			strings.HasPrefix(kv, "CHECKPOINT_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// procUsage is what the wrapper recorded for the provider processes of
// one Terraform command (Terraform starts a provider several times).
type procUsage struct {
	maxRSSKiB int64
	cpu       float64
	starts    int
}

func readUsage(path string) (procUsage, error) {
	var u procUsage
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rss int64
		var user, sys float64
		var name string
		if _, err := fmt.Sscan(sc.Text(), &rss, &user, &sys, &name); err != nil {
			return u, fmt.Errorf("%s: %q: %v", path, sc.Text(), err)
		}
		u.maxRSSKiB = max(u.maxRSSKiB, rss)
		u.cpu += user + sys
		u.starts++
	}
	return u, sc.Err()
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\n\t" + strings.Join(lines, "\n\t")
}

// summarizeProfiles writes top.txt in dir: the top functions of the CPU
// profiles of all the provider processes of one command, merged.
func summarizeProfiles(ctx context.Context, binary, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "provider-*.pprof"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no profiles (%v)", err)
	}
	var out []byte
	for _, mode := range []string{"-top", "-top -cum"} {
		args := append([]string{"tool", "pprof", "-nodecount=40"}, strings.Fields(mode)...)
		args = append(append(args, binary), files...)
		o, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("go tool pprof: %v: %s", err, o)
		}
		out = append(append(out, "### go tool pprof "+mode+"\n\n"...), o...)
	}
	return os.WriteFile(filepath.Join(dir, "top.txt"), out, 0o644)
}
