// Command custody-emulator serves the local emulator of the custody service
// (internal/emulator) over plain http on a loopback address, for the
// provider's acceptance tests and the demo. See examples/emulator/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if args := os.Args[1:]; len(args) > 0 && (args[0] == "approve" || args[0] == "reject") {
		err = runVote(ctx, args[0], args[1:], os.Getenv, os.Stdout, os.Stderr)
	} else if len(args) > 0 && args[0] == "history" {
		err = runHistory(args[1:], os.Getenv, os.Stdout, os.Stderr)
	} else {
		err = run(ctx, args, os.Getenv, os.Stdout, os.Stderr)
	}
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "custody-emulator:", err)
		os.Exit(1)
	}
}

// version is overwritten at release time with -ldflags "-X main.version=..."
// (the release's version, without the "v"); a plain build is "dev".
var version = "dev"

// envFileName is the default env file, next to the state file (or in the
// working directory without one), so that each state keeps its keys.
const envFileName = "custody-emulator.env"

// config holds the flags. Each flag may also come from the environment
// variable envVars names; a flag given on the command line wins.
type config struct {
	listen, statePath, orgID, orgName, apiPublicKey, fixtures, envFile string
	rootQuorum                                                         int
	liveness, latency                                                  time.Duration
	rate429, rate503, rate500, rateDrop, rate500Commit, latencyRate    float64
	rateStaleRetry                                                     float64
	retryAfter                                                         int
	seed                                                               uint64
	showVersion                                                        bool
	fromUser                                                           map[string]bool // flags set by flag or env
}

var envVars = map[string]string{
	"listen": "CUSTODY_EMULATOR_LISTEN", "state": "CUSTODY_EMULATOR_STATE", "organization-id": "CUSTODY_ORGANIZATION_ID",
	"organization-name": "CUSTODY_ORGANIZATION_NAME", "api-public-key": "CUSTODY_API_PUBLIC_KEY",
	"root-quorum": "CUSTODY_EMULATOR_ROOT_QUORUM", "fixtures": "CUSTODY_EMULATOR_FIXTURES",
	"liveness-window": "CUSTODY_EMULATOR_LIVENESS_WINDOW", "env-file": "CUSTODY_EMULATOR_ENV_FILE",
	"fault-429-rate": "CUSTODY_EMULATOR_FAULT_429_RATE", "fault-503-rate": "CUSTODY_EMULATOR_FAULT_503_RATE",
	"fault-500-rate": "CUSTODY_EMULATOR_FAULT_500_RATE", "fault-drop-rate": "CUSTODY_EMULATOR_FAULT_DROP_RATE",
	"fault-500-after-commit-rate": "CUSTODY_EMULATOR_FAULT_500_AFTER_COMMIT_RATE", "fault-seed": "CUSTODY_EMULATOR_FAULT_SEED",
	"fault-latency": "CUSTODY_EMULATOR_FAULT_LATENCY", "fault-latency-rate": "CUSTODY_EMULATOR_FAULT_LATENCY_RATE",
	"fault-retry-after": "CUSTODY_EMULATOR_FAULT_RETRY_AFTER", "fault-stale-retry-rate": "CUSTODY_EMULATOR_FAULT_STALE_RETRY_RATE",
}

func parseConfig(args []string, env func(string) string, stderr io.Writer) (*config, error) {
	c := &config{fromUser: map[string]bool{}}
	fs := flag.NewFlagSet("custody-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage:\n  custody-emulator [flags]   serve the emulator\n"+
			"  custody-emulator approve|reject [-env-file F] (-fingerprint FP | -all) [-root N]\n"+
			"                             vote as a generated root user on activities that wait for consensus\n"+
			"  custody-emulator history -state F [-days N] [-per-day N] [-seed N]\n"+
			"                             add a generated history of activities to a state file\n\nFlags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8443", "loopback address to serve on; port 0 picks a free port")
	fs.StringVar(&c.statePath, "state", "", "state file, loaded at start and rewritten after every change (default: state in memory only)")
	fs.StringVar(&c.orgID, "organization-id", "", "organization id of a new state (default: a new random id)")
	fs.StringVar(&c.orgName, "organization-name", "", "organization name of a new state")
	fs.StringVar(&c.apiPublicKey, "api-public-key", "", "compressed P-256 public key (hex) of the first root user (default: a generated key pair, printed)")
	fs.IntVar(&c.rootQuorum, "root-quorum", 1, "root users and approvals an activity needs; N-1 extra root users get generated keys")
	fs.StringVar(&c.fixtures, "fixtures", "", "fixtures file seeding a new state (see examples/emulator/fixtures.json); with an existing -state, the fixtures it was seeded with, which are not loaded again")
	fs.DurationVar(&c.liveness, "liveness-window", emulator.DefaultLivenessWindow, "how far a submit's timestampMs may be from now")
	fs.StringVar(&c.envFile, "env-file", "", "file receiving the export lines, mode 0600 (default: "+envFileName+" next to -state, else in the working directory)")
	fs.Float64Var(&c.rate429, "fault-429-rate", 0, "fraction of requests answered 429 with Retry-After")
	fs.Float64Var(&c.rate503, "fault-503-rate", 0, "fraction of requests answered 503")
	fs.Float64Var(&c.rate500, "fault-500-rate", 0, "fraction of requests answered 500")
	fs.Float64Var(&c.rateDrop, "fault-drop-rate", 0, "fraction of submits committed but answered by a dropped connection")
	fs.Float64Var(&c.rate500Commit, "fault-500-after-commit-rate", 0, "fraction of submits committed but answered 500")
	fs.Float64Var(&c.rateStaleRetry, "fault-stale-retry-rate", 0, "fraction of resubmissions of a committed body refused as outside the liveness window")
	fs.DurationVar(&c.latency, "fault-latency", 0, "delay added to a fraction (-fault-latency-rate) of requests")
	fs.Float64Var(&c.latencyRate, "fault-latency-rate", 1, "fraction of requests delayed by -fault-latency")
	fs.IntVar(&c.retryAfter, "fault-retry-after", 1, "Retry-After seconds of injected 429 answers")
	fs.Uint64Var(&c.seed, "fault-seed", 0, "seed of the fault choices, for repeatable runs (0: random)")
	fs.VisitAll(func(f *flag.Flag) { f.Usage += " (env " + envVars[f.Name] + ")" })
	fs.BoolVar(&c.showVersion, "version", false, "print the version (\"custody-emulator 1.2.3\", or \"dev\" for a plain build) and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) { c.fromUser[f.Name] = true })
	for name, v := range envVars {
		if val := env(v); val != "" && !c.fromUser[name] {
			if err := fs.Set(name, val); err != nil {
				return nil, fmt.Errorf("%s=%q: invalid value for -%s: %v", v, val, name, err)
			}
			c.fromUser[name] = true
		}
	}
	return c, c.check()
}

func (c *config) check() error {
	if err := checkLoopback(c.listen); err != nil {
		return err
	}
	for name, r := range map[string]float64{"fault-429-rate": c.rate429, "fault-503-rate": c.rate503, "fault-500-rate": c.rate500,
		"fault-drop-rate": c.rateDrop, "fault-500-after-commit-rate": c.rate500Commit, "fault-latency-rate": c.latencyRate,
		"fault-stale-retry-rate": c.rateStaleRetry} {
		if r < 0 || r > 1 {
			return fmt.Errorf("-%s %v: a rate is a fraction from 0 to 1", name, r)
		}
	}
	switch {
	case c.rootQuorum < 1:
		return fmt.Errorf("-root-quorum %d: at least 1", c.rootQuorum)
	case c.liveness <= 0 || c.latency < 0 || c.retryAfter < 0:
		return errors.New("-liveness-window must be positive; -fault-latency and -fault-retry-after must not be negative")
	}
	return nil
}

// checkLoopback refuses any address but a loopback one: the emulator serves
// plain http with test keys and must not be reachable from a network.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-listen %q: %v", addr, err)
	}
	if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
		return fmt.Errorf("-listen %q: not a loopback address; the emulator listens on loopback only (e.g. 127.0.0.1:8443, [::1]:8443, localhost:0)", addr)
	}
	return nil
}

func (c *config) faults() emulator.Faults {
	f := emulator.Faults{RateLimited: emulator.FaultRate{Rate: c.rate429}, RetryAfterSeconds: c.retryAfter,
		Unavailable: emulator.FaultRate{Rate: c.rate503}, Internal: emulator.FaultRate{Rate: c.rate500},
		DropAfterCommit: emulator.FaultRate{Rate: c.rateDrop}, InternalAfterCommit: emulator.FaultRate{Rate: c.rate500Commit},
		StaleRetry: emulator.FaultRate{Rate: c.rateStaleRetry}, Seed: c.seed}
	if c.latency > 0 {
		f.Latency, f.Delay = emulator.FaultRate{Rate: c.latencyRate}, c.latency
	}
	return f
}

// run starts the emulator and serves until ctx ends.
func run(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, env, stderr)
	if err != nil {
		return err
	}
	if c.showVersion {
		_, err := fmt.Fprintln(stdout, "custody-emulator", version)
		return err
	}
	restart, err := stateExists(c.statePath)
	if err != nil {
		return err
	}
	var keys []rootKey
	if restart {
		keys = restartKeys(c, stderr)
	} else if keys, err = newKeys(c, stderr); err != nil { // may pick the organization id
		return err
	}
	opts := emulator.Options{OrganizationID: c.orgID, OrganizationName: c.orgName, RootQuorum: c.rootQuorum,
		LivenessWindow: c.liveness, StatePath: c.statePath, Faults: c.faults()}
	for _, k := range keys {
		opts.RootUsers = append(opts.RootUsers, emulator.RootUser{APIPublicKey: k.pub})
	}
	if c.fixtures != "" {
		if opts.Fixtures, err = emulator.LoadFixtures(c.fixtures); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	defer func() { _ = ln.Close() }()
	srv, err := emulator.New(opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if restart && c.fixtures != "" {
		// New refuses any other fixtures than those the state was seeded with.
		note(stderr, "state file %s already holds the fixtures of %s: state kept as it is, fixtures not loaded again", c.statePath, c.fixtures)
	}
	if restart {
		if keys, err = previousKeys(c.envFilePath(), srv.OrganizationID(), keys, stderr); err != nil {
			return err
		}
	}
	baseURL := "http://" + ln.Addr().String()
	lines := exportLines(baseURL, srv.OrganizationID(), keys)
	// The env file is written before anything is printed, so that a
	// script that waits for the printed lines can also read the file.
	if err := writeEnvFile(c.envFilePath(), lines); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "custody-emulator: serving %s\n%s", baseURL, strings.Join(lines, "")); err != nil {
		return err
	}
	return serve(ctx, ln, srv, stderr)
}

// serve answers on ln until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, ln net.Listener, srv *emulator.Server, stderr io.Writer) error {
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shutdownCtx)
	note(stderr, "stopped")
	return err
}

// note tells the operator something on stderr; a failed write there has
// nowhere better to go.
func note(stderr io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(stderr, "custody-emulator: "+format+"\n", args...)
}

func stateExists(path string) (bool, error) {
	if path == "" {
		return false, nil
	}
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// rootKey is a root user's key; priv is empty when the emulator did not
// generate the key (it never sees a private key it was not the maker of).
type rootKey struct{ pub, priv string }
