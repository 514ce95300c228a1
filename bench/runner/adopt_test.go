package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// TestPopulate makes the adopt row's organization in an in-process
// emulator, which checks every request as the service does, and counts
// what is there.
func TestPopulate(t *testing.T) {
	key := clienttest.NewAPIKey(t)
	const org = "org-adopt"
	srv, err := emulator.New(emulator.Options{OrganizationID: org, OrganizationName: "Adopt",
		RootUsers: []emulator.RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: key.PublicKeyHex()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	c, err := emulatorClient([]string{"CUSTODY_BASE_URL=" + hs.URL, "CUSTODY_ORGANIZATION_ID=" + org,
		"CUSTODY_API_PUBLIC_KEY=" + key.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY=" + key.PrivateKeyHex(), "OTHER=x"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := populate(ctx, c); err != nil {
		t.Fatal(err)
	}
	req := client.OrganizationRequest{OrganizationID: org}
	pols, err := c.ListPolicies(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, p := range pols.Policies {
		if strings.HasPrefix(p.PolicyName, "adopt-policy-") {
			kinds[p.Effect]++
			if p.Time != "" {
				kinds["time"]++
			}
			if p.Consensus != "" {
				kinds["consensus"]++
			}
		}
	}
	want := map[string]int{client.EffectAllow: 200, client.EffectDeny: 100, "time": 100, "consensus": 100}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("policies: %d %s, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	tags, err := c.ListPrivateKeyTags(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(len(tags.PrivateKeyTags), func(i int) string { return tags.PrivateKeyTags[i].TagName }, "adopt-tag-"); n != adoptTags {
		t.Errorf("%d tags, want %d", n, adoptTags)
	}
	keys, err := c.ListPrivateKeys(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys.PrivateKeys {
		if strings.HasPrefix(k.PrivateKeyName, "adopt-key-") && len(k.PrivateKeyTags) != 2 {
			t.Errorf("key %s carries %d tags, want 2", k.PrivateKeyName, len(k.PrivateKeyTags))
		}
	}
	if n := countPrefix(len(keys.PrivateKeys), func(i int) string { return keys.PrivateKeys[i].PrivateKeyName }, "adopt-key-"); n != adoptKeys {
		t.Errorf("%d keys, want %d", n, adoptKeys)
	}
	hooks, err := c.ListWebhookEndpoints(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(len(hooks.WebhookEndpoints), func(i int) string { return hooks.WebhookEndpoints[i].Name }, "adopt-endpoint-"); n != adoptWebhooks {
		t.Errorf("%d webhook endpoints, want %d", n, adoptWebhooks)
	}
	for _, h := range hooks.WebhookEndpoints {
		if len(h.Subscriptions) != 1 || h.Subscriptions[0].EventType != "BALANCE_CONFIRMED_UPDATES" {
			t.Errorf("endpoint %s subscriptions %+v: want BALANCE_CONFIRMED_UPDATES alone, which the emulator never delivers", h.Name, h.Subscriptions)
		}
	}
}

func countPrefix(n int, name func(int) string, prefix string) int {
	c := 0
	for i := range n {
		if strings.HasPrefix(name(i), prefix) {
			c++
		}
	}
	return c
}

func TestCountImportBlocks(t *testing.T) {
	hcl := `# policies
import {
  to = custody_policy.a
  id = "p-1"
}
  import {
  to = custody_webhook_endpoint.b
  id = "w-1"
}
# import { is not a block in a comment
`
	if n := countImportBlocks(hcl); n != 2 {
		t.Errorf("countImportBlocks = %d, want 2", n)
	}
}

func TestImportedCount(t *testing.T) {
	for _, tc := range []struct {
		log               string
		imported, changed int
		err               string
	}{
		{log: "\nApply complete! Resources: 370 imported, 0 added, 0 changed, 0 destroyed.\n", imported: 370},
		{log: "Apply complete! Resources: 340 imported, 0 added, 2 changed, 0 destroyed.", imported: 340, changed: 2},
		{log: "Apply complete! Resources: 339 imported, 0 added, 0 changed, 0 destroyed.", imported: 339, err: "fewer than the 340"},
		{log: "Apply complete! Resources: 340 imported, 1 added, 0 changed, 0 destroyed.", imported: 340, err: "added 1"},
		{log: "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.", err: "no \"Apply complete!"},
	} {
		imp, ch, err := importedCount(tc.log)
		if imp != tc.imported || ch != tc.changed || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("importedCount(%q) = %d, %d, %v; want %d, %d, error containing %q", tc.log, imp, ch, err, tc.imported, tc.changed, tc.err)
		}
	}
}

func TestAdoptIsAConfigurationOfTheDefaultRun(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !o.adopt || !o.configs["policy"] {
		t.Errorf("default run: adopt %v, policy %v; want both", o.adopt, o.configs["policy"])
	}
	o, err = parseOptions([]string{"-configs", "adopt"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.adopt || len(o.configs) != 0 || len(o.selected()) != 0 {
		t.Errorf("-configs adopt: adopt %v, configs %v; want adopt alone", o.adopt, o.configs)
	}
	if _, err := parseOptions([]string{"-configs", "adopt,nope"}); err == nil || !strings.Contains(err.Error(), "adopt") {
		t.Errorf("unknown configuration: %v; want an error that lists adopt among the known", err)
	}
}

// adoptRun is a successful run with these wall times of read, generate,
// import and check.
func adoptRun(r int, w ...float64) *adoptResult {
	a := &adoptResult{run: r, populate: 1.5, blocks: 370, imported: 370, steps: map[string]*phaseResult{}}
	for i, st := range append(append([]string{}, adoptSteps...), adoptCheck) {
		a.steps[st] = &phaseResult{wall: w[i], tfCPU: 2, provCPU: 1, emuCPU: 0.1, rssKiB: 30 << 10, starts: 2,
			counts: map[string]int{"query/list_policies": 1, "query/whoami": 1}}
	}
	return a
}

// threeAdoptRuns are the options of -configs adopt -runs 3 and three
// successful runs of the first flow, where the report tests start.
func threeAdoptRuns(t *testing.T) (*options, []*adoptResult) {
	t.Helper()
	o, err := parseOptions([]string{"-configs", "adopt", "-runs", "3"})
	if err != nil {
		t.Fatal(err)
	}
	return o, []*adoptResult{adoptRun(0, 3, 10, 20, 4), adoptRun(1, 4, 12, 22, 5), adoptRun(2, 5, 11, 30, 6)}
}

// reportHas fails t for each of want that the report rep lacks.
func reportHas(t *testing.T, rep string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(rep, w) {
			t.Errorf("the report lacks %q:\n%s", w, rep)
		}
	}
}

func TestAdoptReport(t *testing.T) {
	o, adopts := threeAdoptRuns(t)
	rep := report(o, environment{}, nil, nil, adopts, nil, nil, time.Minute)
	reportHas(t, rep,
		"`adopt` (300 policies, 30 tags, 10 webhook endpoints; 3 run(s))",
		"- parameters: 3 run(s); `-parallelism=10` for every terraform command;",
		"## Adopt\n",
		"| 1. apply: read the organization | 4.00 (3.00–5.00) | 1.00 / 1.00 / 0.10 | 30.0 | 2 (query/list_policies ×1, query/whoami ×1) |",
		"| 3. output > exclusive.tf, apply: import | 22.00 (20.00–30.00) |",
		"| check: plan -detailed-exitcode (not in the total) | 5.00 (4.00–6.00) |",
		"| **total (1 + 2 + 3)** | **38.00 (33.00–46.00)** |",
		"| adopt 300 policies, 30 tags, 10 webhook endpoints end to end in under 60 s | 38.00s median total (33.00–46.00; 4.00 + 11.00 + 22.00) | met |",
	)
	if strings.Contains(rep, "## N = ") {
		t.Errorf("-configs adopt alone: the report has per-N sections:\n%s", rep)
	}

	slow := []*adoptResult{adoptRun(0, 10, 20, 40, 4), {run: 1, err: context.DeadlineExceeded}}
	rep = report(o, environment{}, nil, nil, slow, nil, []string{"adopt run 2: deadline"}, time.Minute)
	reportHas(t, rep, "| adopt 300 policies, 30 tags, 10 webhook endpoints end to end in under 60 s | 70.00s median total (70.00–70.00; 10.00 + 20.00 + 40.00) | **MISSED** |")
	if !strings.Contains(rep, "1 successful run(s) of 2") {
		t.Errorf("the report does not count the failed run:\n%s", rep)
	}

	rep = report(o, environment{}, nil, nil, []*adoptResult{{err: context.Canceled}}, nil, []string{"adopt run 1: canceled"}, time.Minute)
	reportHas(t, rep, "| adopt 300 policies, 30 tags, 10 webhook endpoints end to end in under 60 s | – | not measured |")
}

// fakeTerraform is a terraform that prints import blocks for output, a
// plan summary for plan, and exits with planExit for plan
// -detailed-exitcode; it logs every command line to calls.
func fakeTerraform(t *testing.T, planExit int) (*tools, string) {
	t.Helper()
	dir := t.TempDir()
	calls := dir + "/calls"
	script := `#!/bin/sh
echo "$@" >> ` + calls + `
case "$2" in
output) printf 'import {\n  to = custody_policy.a\n  id = "p-1"\n}\n' ;;
plan)
	case "$*" in
	*-detailed-exitcode*) echo "Plan: 0 to add, 1 to change, 0 to destroy."; exit ` + fmt.Sprint(planExit) + ` ;;
	*) echo "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy." ;;
	esac ;;
esac
`
	tf := dir + "/terraform"
	if err := os.WriteFile(tf, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return &tools{work: dir, terraform: tf}, calls
}

// runningEmulator is an emulatorProc whose requests an in-process
// emulator answers, with a sleeping process for its CPU time.
func runningEmulator(t *testing.T) *emulatorProc {
	t.Helper()
	srv, err := emulator.New(emulator.Options{OrganizationID: "org-adopt", OrganizationName: "Adopt",
		RootUsers: []emulator.RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: clienttest.NewAPIKey(t).PublicKeyHex()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); hs.Close(); srv.Close() })
	return &emulatorProc{cmd: cmd, baseURL: hs.URL}
}

// TestRunSteps: the generate step runs both commands, the first one's
// output into imports.tf, and a check plan that exits 2 fails the run with
// the reason.
func TestRunSteps(t *testing.T) {
	tl, calls := fakeTerraform(t, 2)
	emu := runningEmulator(t)
	dir := t.TempDir()
	ctx := context.Background()
	p, log, err := runSteps(ctx, tl, emu, dir, adoptGenerate, []tfCommand{
		{args: []string{"output", "-raw", "import_blocks"}, stdout: "imports.tf"},
		{args: []string{"plan", "-generate-config-out=generated.tf"}, want: " to import, "},
	}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if p.wall <= 0 || !strings.Contains(log, "1 to import") {
		t.Errorf("wall %v, log %q", p.wall, log)
	}
	b, err := os.ReadFile(dir + "/imports.tf")
	if err != nil || countImportBlocks(string(b)) != 1 || strings.Contains(log, "import {") {
		t.Errorf("imports.tf %q (%v); the log %q must not hold the output", b, err, log)
	}
	got, _ := os.ReadFile(calls)
	if want := "-chdir=" + dir + " output -raw import_blocks\n-chdir=" + dir + " plan -generate-config-out=generated.tf\n"; string(got) != want {
		t.Errorf("commands:\n%s\nwant:\n%s", got, want)
	}

	_, _, err = runSteps(ctx, tl, emu, dir, adoptCheck, []tfCommand{{args: []string{"plan", "-detailed-exitcode"}, want: "No changes."}}, os.Environ())
	if err == nil || !strings.Contains(err.Error(), "not empty (exit 2)") {
		t.Errorf("a check plan that exits 2: %v; want the adopted configuration refused as not converging", err)
	}
	_, _, err = runSteps(ctx, tl, emu, dir, adoptGenerate, []tfCommand{{args: []string{"plan"}, want: "Apply complete!"}}, os.Environ())
	if err == nil || !strings.Contains(err.Error(), `lacks "Apply complete!"`) {
		t.Errorf("output without what is wanted: %v", err)
	}
}
