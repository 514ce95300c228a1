package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// syncBuffer is an io.Writer the test reads while run writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// instance is a run of the binary in-process.
type instance struct {
	stdout, stderr string
	vals           map[string]string // the export assignments
	exports        []string          // the export lines
	stop           func() error      // cancels run and returns its error
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// start runs the binary until it prints its export lines.
func start(t *testing.T, args []string, env map[string]string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan struct{}) // closed once run has returned runErr
	var runErr error
	go func() { runErr = run(ctx, args, envOf(env), out, errOut); close(done) }()
	stop := func() error { cancel(); <-done; return runErr }
	t.Cleanup(func() { _ = stop() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "\nexport ") {
		select {
		case <-done:
			t.Fatalf("run returned %v before serving; stderr: %s", runErr, errOut)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no export lines after 10 s; stdout %q", out)
		}
	}
	inst := &instance{stdout: out.String(), stderr: errOut.String(), stop: stop, vals: parseExports(out.String())}
	for _, l := range strings.SplitAfter(inst.stdout, "\n") {
		if strings.HasPrefix(l, "export ") {
			inst.exports = append(inst.exports, l)
		}
	}
	return inst
}

// clientOf is a client with the printed credentials of root user n.
func (in *instance) clientOf(t *testing.T, prefix string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: in.vals["CUSTODY_BASE_URL"], OrganizationID: in.vals["CUSTODY_ORGANIZATION_ID"],
		APIPublicKey: in.vals[prefix+"PUBLIC_KEY"], APIPrivateKey: in.vals[prefix+"PRIVATE_KEY"], Retries: client.NoRetries})
	if err != nil {
		t.Fatalf("client from the printed lines: %v", err)
	}
	return c
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRunServesAndWritesEnvFile(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	in := start(t, []string{"-listen", "127.0.0.1:0", "-state", state, "-root-quorum", "2", "-organization-name", "Demo Org"}, nil)
	if !regexp.MustCompile(`^custody-emulator: serving http://127\.0\.0\.1:[1-9][0-9]*\n`).MatchString(in.stdout) {
		t.Fatalf("first line: %q", in.stdout)
	}
	if len(in.exports) != 2 || !strings.HasPrefix(in.exports[0], "export CUSTODY_BASE_URL=http://127.0.0.1:") ||
		!strings.HasPrefix(in.exports[1], "export CUSTODY_ROOT2_API_PUBLIC_KEY=") {
		t.Fatalf("export lines: %q", in.exports)
	}
	if !strings.HasPrefix(in.stdout, "custody-emulator: serving "+in.vals["CUSTODY_BASE_URL"]+"\n") || !uuidShape.MatchString(in.vals["CUSTODY_ORGANIZATION_ID"]) {
		t.Fatalf("base URL or generated organization id: %q", in.stdout)
	}
	envFile := filepath.Join(dir, envFileName)
	info, err := os.Stat(envFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("env file next to the state: %v, %v", info, err)
	}
	content, _ := os.ReadFile(envFile)
	if !strings.HasSuffix(string(content), strings.Join(in.exports, "")) {
		t.Fatalf("env file %q does not hold the printed lines %q", content, in.exports)
	}
	for _, prefix := range []string{"CUSTODY_API_", "CUSTODY_ROOT2_API_"} {
		who, err := in.clientOf(t, prefix).Whoami(t.Context(), client.WhoamiRequest{})
		if err != nil || who.OrganizationName != "Demo Org" || who.OrganizationID != in.vals["CUSTODY_ORGANIZATION_ID"] {
			t.Fatalf("whoami with %s*: %+v, %v", prefix, who, err)
		}
	}
	if err := in.stop(); err != nil {
		t.Fatalf("run after cancel: %v", err)
	}
	if _, err := http.Get(in.vals["CUSTODY_BASE_URL"]); err == nil {
		t.Fatal("the server still answers after shutdown")
	}

	// A restart on the same state keeps the organization and hands out
	// the same credentials, read back from the env file.
	again := start(t, []string{"-listen", "127.0.0.1:0", "-state", state}, nil)
	for _, k := range []string{"CUSTODY_ORGANIZATION_ID", "CUSTODY_API_PUBLIC_KEY", "CUSTODY_API_PRIVATE_KEY", "CUSTODY_ROOT2_API_PRIVATE_KEY"} {
		if again.vals[k] != in.vals[k] {
			t.Fatalf("after a restart %s = %q, want %q", k, again.vals[k], in.vals[k])
		}
	}
	if _, err := again.clientOf(t, "CUSTODY_API_").Whoami(t.Context(), client.WhoamiRequest{}); err != nil {
		t.Fatalf("whoami after a restart: %v", err)
	}
	_ = again.stop()
	err = run(t.Context(), []string{"-listen", "127.0.0.1:0", "-state", state, "-organization-id", "another-org"}, envOf(nil), &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "another-org") {
		t.Fatalf("a restart naming another organization: %v", err)
	}
}

func TestRunWithGivenPublicKey(t *testing.T) {
	key := clienttest.NewAPIKey(t)
	envFile := filepath.Join(t.TempDir(), "env")
	in := start(t, []string{"-listen", "localhost:0", "-api-public-key", key.PublicKeyHex(), "-organization-id", "org-given", "-env-file", envFile}, nil)
	if strings.Contains(in.stdout, "PRIVATE_KEY") || in.vals["CUSTODY_API_PUBLIC_KEY"] != key.PublicKeyHex() || in.vals["CUSTODY_ORGANIZATION_ID"] != "org-given" {
		t.Fatalf("a given key must be printed without a private key: %q", in.stdout)
	}
	in.vals["CUSTODY_API_PRIVATE_KEY"] = key.PrivateKeyHex()
	if who, err := in.clientOf(t, "CUSTODY_API_").Whoami(t.Context(), client.WhoamiRequest{}); err != nil || who.OrganizationID != "org-given" {
		t.Fatalf("whoami: %+v, %v", who, err)
	}
}

func TestRunRefusesNonLoopbackListen(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.10:8443", "example.com:8443"} {
		envFile := filepath.Join(t.TempDir(), "env")
		err := run(t.Context(), []string{"-listen", addr, "-env-file", envFile}, envOf(nil), &syncBuffer{}, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
			t.Fatalf("-listen %s: %v", addr, err)
		}
		if _, err := os.Stat(envFile); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("-listen %s: an env file was written", addr)
		}
	}
	err := run(t.Context(), []string{"-listen", "127.0.0.1"}, envOf(nil), &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "missing port") {
		t.Fatalf("-listen without a port: %v", err)
	}
}

func TestRunCorruptStateIsAnError(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	if err := os.WriteFile(state, []byte("not json at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), []string{"-listen", "127.0.0.1:0", "-state", state}, envOf(nil), &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("run = %v, want a corrupt-state error", err)
	}
	if got, _ := os.ReadFile(state); string(got) != "not json at all" {
		t.Fatal("a corrupt state file must be left as it was")
	}
}

func TestRunFlagsOverrideEnv(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"CUSTODY_EMULATOR_LISTEN":   "0.0.0.0:8443", // refused if it were used
		"CUSTODY_ORGANIZATION_ID":   "org-from-env",
		"CUSTODY_EMULATOR_ENV_FILE": filepath.Join(dir, "from-env.env"),
	}
	in := start(t, []string{"-listen", "127.0.0.1:0", "-organization-id", "org-from-flag"}, env)
	if in.vals["CUSTODY_ORGANIZATION_ID"] != "org-from-flag" {
		t.Fatalf("the flag must win: %q", in.stdout)
	}
	if _, err := os.Stat(env["CUSTODY_EMULATOR_ENV_FILE"]); err != nil {
		t.Fatalf("a setting only in the environment applies: %v", err)
	}
	_ = in.stop()
	env["CUSTODY_EMULATOR_LISTEN"] = "127.0.0.1:0"
	if in := start(t, nil, env); in.vals["CUSTODY_ORGANIZATION_ID"] != "org-from-env" {
		t.Fatalf("without the flag, the environment applies: %q", in.stdout)
	}
	env["CUSTODY_EMULATOR_ROOT_QUORUM"] = "two"
	err := run(t.Context(), nil, envOf(env), &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), `CUSTODY_EMULATOR_ROOT_QUORUM="two"`) {
		t.Fatalf("a bad environment value must be named: %v", err)
	}
}

func TestRunFixturesAndFaults(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "env")
	in := start(t, []string{"-listen", "127.0.0.1:0", "-env-file", envFile, "-fixtures", "../../examples/emulator/fixtures.json"}, nil)
	app, err := in.clientOf(t, "CUSTODY_API_").GetAppStatus(t.Context(), client.GetAppStatusRequest{AppID: "1f867cf8-cde5-406f-b0ec-970e4c6b344c"})
	if err != nil || len(app.AppStatus.Deployments) != 2 {
		t.Fatalf("fixtures: %+v, %v", app, err)
	}
	_ = in.stop()

	down := start(t, []string{"-listen", "127.0.0.1:0", "-env-file", envFile, "-fault-503-rate", "1"}, nil)
	_, err = down.clientOf(t, "CUSTODY_API_").Whoami(t.Context(), client.WhoamiRequest{})
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusServiceUnavailable {
		t.Fatalf("-fault-503-rate 1: %v", err)
	}
	for _, args := range [][]string{{"-fault-429-rate", "1.5"}, {"-fault-drop-rate", "-0.1"}, {"-fault-500-after-commit-rate", "2"}, {"-fault-stale-retry-rate", "1.1"},
		{"-fault-latency", "-1s"}, {"-root-quorum", "0"}, {"stray"}} {
		if err := run(t.Context(), args, envOf(nil), &syncBuffer{}, &syncBuffer{}); err == nil {
			t.Fatalf("%v must be refused", args)
		}
	}
}

// Every fault flag, from the command line or its variable, reaches the
// emulator's Faults.
func TestFaultSettings(t *testing.T) {
	c, err := parseConfig([]string{"-fault-429-rate", "0.1", "-fault-503-rate", "0.2", "-fault-500-rate", "0.3", "-fault-drop-rate", "0.4",
		"-fault-retry-after", "3", "-fault-seed", "7", "-fault-stale-retry-rate", "0.6"},
		envOf(map[string]string{"CUSTODY_EMULATOR_FAULT_500_AFTER_COMMIT_RATE": "0.5", "CUSTODY_EMULATOR_FAULT_LATENCY": "2s"}), &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	got := c.faults()
	want := emulator.Faults{RateLimited: emulator.FaultRate{Rate: 0.1}, RetryAfterSeconds: 3, Unavailable: emulator.FaultRate{Rate: 0.2},
		Internal: emulator.FaultRate{Rate: 0.3}, DropAfterCommit: emulator.FaultRate{Rate: 0.4}, InternalAfterCommit: emulator.FaultRate{Rate: 0.5},
		Latency: emulator.FaultRate{Rate: 1}, Delay: 2 * time.Second, StaleRetry: emulator.FaultRate{Rate: 0.6}, Seed: 7}
	if got != want {
		t.Fatalf("faults = %+v\nwant     %+v", got, want)
	}
}

func TestExportLinesRoundTrip(t *testing.T) {
	keys := []rootKey{{pub: "02ab", priv: "cd"}, {pub: "03ef"}}
	lines := exportLines("http://[::1]:8443", "org with 'quotes' & $vars", keys)
	vals := parseExports(strings.Join(lines, ""))
	want := map[string]string{"CUSTODY_BASE_URL": "http://[::1]:8443", "CUSTODY_ORGANIZATION_ID": "org with 'quotes' & $vars",
		"CUSTODY_API_PUBLIC_KEY": "02ab", "CUSTODY_API_PRIVATE_KEY": "cd", "CUSTODY_ROOT2_API_PUBLIC_KEY": "03ef"}
	if len(vals) != len(want) {
		t.Fatalf("parsed %v from %q", vals, lines)
	}
	for k, v := range want {
		if vals[k] != v {
			t.Fatalf("%s = %q, want %q (lines %q)", k, vals[k], v, lines)
		}
	}
}

// -version prints the version the release stamps in (here a plain build's
// "dev") and serves nothing; the release stamps the emulator as it stamps
// the provider, so that the GitOps workflow can check what it downloaded.
func TestVersion(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(t.Context(), []string{"-version"}, func(string) string { return "" }, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "custody-emulator dev\n" {
		t.Errorf("-version printed %q", stdout.String())
	}
	release, err := os.ReadFile("../../.goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			ID      string   `yaml:"id"`
			Main    string   `yaml:"main"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(release, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, b := range cfg.Builds {
		if b.Main == "./cmd/custody-emulator" && len(b.Ldflags) == 1 && strings.Contains(b.Ldflags[0], "-X main.version={{ .Version }}") {
			return
		}
	}
	t.Errorf(".goreleaser.yml does not stamp the emulator's main.version: %+v", cfg.Builds)
}

// approve and reject finish the consensus flow offline: the second root
// user's keys, which the server generated and wrote to its env file, vote
// through the client as a second person would. -all votes on every
// activity that waits and that user has not voted on, and says which.
func TestApproveAndRejectAsTheSecondRootUser(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "custody-emulator.env")
	in := start(t, []string{"-listen", "127.0.0.1:0", "-root-quorum", "2", "-env-file", envFile}, nil)
	first := in.clientOf(t, "CUSTODY_API_")
	submit := func(name string) *client.ConsensusNeededError {
		t.Helper()
		_, err := first.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: name, Effect: client.EffectDeny,
			Condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"}}})
		var pending *client.ConsensusNeededError
		if !errors.As(err, &pending) {
			t.Fatalf("a create with a root quorum of 2 should wait for the second root user, got %v", err)
		}
		return pending
	}
	vote := func(args ...string) (string, error) {
		var out, errOut strings.Builder
		err := runVote(t.Context(), args[0], args[1:], func(string) string { return "" }, &out, &errOut)
		return out.String(), err
	}

	a, b := submit("a"), submit("b")
	out, err := vote("approve", "-env-file", envFile, "-all")
	if err != nil || strings.Count(out, "approved ") != 2 || !strings.Contains(out, a.ActivityID) || !strings.Contains(out, b.ActivityID) ||
		!strings.Contains(out, client.StatusCompleted) {
		t.Fatalf("approve -all: %v\n%s", err, out)
	}
	if got, err := first.ListPolicies(t.Context(), client.ListPoliciesRequest{}); err != nil || len(got.Policies) != 2 {
		t.Fatalf("after the approvals: %v, %+v", err, got)
	}
	if out, err := vote("approve", "-env-file", envFile, "-all"); err != nil || out != "nothing waits for this root user's vote\n" {
		t.Errorf("a second approve -all: %v %q", err, out)
	}

	c := submit("c")
	out, err = vote("reject", "-env-file", envFile, "-fingerprint", c.Fingerprint)
	if err != nil || !strings.Contains(out, "rejected "+c.ActivityID) || !strings.Contains(out, client.StatusRejected) {
		t.Fatalf("reject -fingerprint: %v\n%s", err, out)
	}
	if _, err := vote("approve", "-env-file", envFile); err == nil || !strings.Contains(err.Error(), "give -fingerprint FP or -all") {
		t.Errorf("approve without a target: %v", err)
	}
	if _, err := vote("approve", "-env-file", envFile, "-all", "-root", "3"); err == nil || !strings.Contains(err.Error(), "CUSTODY_ROOT3_API_PRIVATE_KEY") {
		t.Errorf("approve as a root user the server did not generate: %v", err)
	}
}
