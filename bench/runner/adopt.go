package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The adopt row (issue 32): an organization made outside Terraform, then
// the user guide's three commands that bring it under Terraform, timed
// separately. It is not a configuration of N resources: it has one size,
// the issue's, and runs -runs times after the configurations.

// adoptName selects it in -configs.
const adoptName = "adopt"

// The organization the target is about.
const (
	adoptPolicies = 300
	adoptTags     = 30
	adoptWebhooks = 10
	// adoptKeys are the private keys the tags are on: every tag is on two
	// keys, and every key carries two tags.
	adoptKeys = adoptTags
	// adoptObjects is the least number of import blocks and imports: the
	// policies, tags and endpoints. The data source may import more (the
	// keys, say); the row does not assume either way.
	adoptObjects = adoptPolicies + adoptTags + adoptWebhooks
	// adoptPolicyBatch is how many policies one create_policies carries.
	adoptPolicyBatch = 100
	// adoptTarget is the bound on the three commands together.
	adoptTarget = 60 * time.Second
)

// adoptHCL is the user guide's first configuration: the data source that
// renders the import blocks and the exclusive blocks, and outputs that
// hold them.
const adoptHCL = custodyProvider + `
data "custody_import_blocks" "all" {}

output "import_blocks" {
  value = data.custody_import_blocks.all.hcl
}

output "exclusive_blocks" {
  value = data.custody_import_blocks.all.exclusive_hcl
}
`

// The steps of the row, in order. The total is the first three; the check
// comes after and is not in it.
const (
	adoptRead     = "read"     // terraform apply: the data source reads the organization
	adoptGenerate = "generate" // terraform output -raw import_blocks > imports.tf && terraform plan -generate-config-out=generated.tf
	adoptImport   = "import"   // terraform output -raw exclusive_blocks > exclusive.tf && terraform apply: the imports, the exclusive resources' too
	adoptCheck    = "check"    // terraform plan -detailed-exitcode: must exit 0
)

var adoptSteps = []string{adoptRead, adoptGenerate, adoptImport}

// adoptResult is one run of the row.
type adoptResult struct {
	run      int
	populate float64 // seconds to make the organization through the client
	steps    map[string]*phaseResult
	blocks   int // import blocks in imports.tf
	imported int // "N imported" of the import step's apply
	changed  int // "N changed" of it: 0 when the generated configuration matches the objects
	err      error
	query    *queryRun // the terraform query flow (adopt_query.go); nil when it does not run
}

// total is the wall time of the three steps.
func (a *adoptResult) total() float64 { return wallOf(a.steps, adoptSteps) }

// wallOf is the wall time of the steps named, those that ran.
func wallOf(steps map[string]*phaseResult, names []string) float64 {
	s := 0.0
	for _, st := range names {
		if p := steps[st]; p != nil {
			s += p.wall
		}
	}
	return s
}

// policyParams is policy i of the organization: an allow with a consensus,
// an allow bounded in time, or a deny of an action Terraform never takes,
// so that none of them stands in the way of the population or the bench.
func policyParams(i int) client.PolicyParams {
	p := client.PolicyParams{PolicyName: fmt.Sprintf("adopt-policy-%03d", i)}
	switch i % 3 {
	case 0:
		p.Effect = client.EffectAllow
		p.Condition = "activity.resource == 'PRIVATE_KEY'"
		p.Consensus = "approvers.count() >= 2"
		p.Notes = "two approvers for key operations"
	case 1:
		p.Effect = client.EffectAllow
		p.Condition = "activity.resource == 'POLICY'"
		p.Time = "time.now < Timestamp('2000-01-01T00:00:00Z')"
	default:
		p.Effect = client.EffectDeny
		p.Condition = "activity.resource == 'WALLET'"
		p.Notes = fmt.Sprintf("deny %d", i)
	}
	return p
}

// populate makes the organization through c: adoptKeys private keys, then
// adoptTags tags on two keys each, adoptWebhooks webhook endpoints, and
// last adoptPolicies policies in batches of adoptPolicyBatch (policies
// last, so that none of them judges the other creates).
//
// The endpoints subscribe only to BALANCE_CONFIRMED_UPDATES, which the
// emulator never emits (see the webhook configuration): nothing is
// delivered while the row runs.
func populate(ctx context.Context, c *client.Client) error {
	keys := make([]client.PrivateKeyParams, adoptKeys)
	for i := range keys {
		keys[i] = client.PrivateKeyParams{PrivateKeyName: fmt.Sprintf("adopt-key-%02d", i), Curve: "CURVE_SECP256K1"}
	}
	made, err := c.CreatePrivateKeys(ctx, client.CreatePrivateKeysParams{PrivateKeys: keys})
	if err != nil {
		return fmt.Errorf("create_private_keys: %w", err)
	}
	ids := make([]string, 0, adoptKeys)
	for _, k := range made.Result.PrivateKeys {
		ids = append(ids, k.PrivateKeyID)
	}
	if len(ids) != adoptKeys {
		return fmt.Errorf("create_private_keys made %d keys, not %d", len(ids), adoptKeys)
	}
	for i := range adoptTags {
		if _, err := c.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: fmt.Sprintf("adopt-tag-%02d", i),
			PrivateKeyIDs: []string{ids[i%adoptKeys], ids[(i+1)%adoptKeys]}}); err != nil {
			return fmt.Errorf("create_private_key_tag %d: %w", i, err)
		}
	}
	for i := range adoptWebhooks {
		if _, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointParams{Name: fmt.Sprintf("adopt-endpoint-%d", i),
			URL:           fmt.Sprintf("http://127.0.0.1:9/adopt/%d", i),
			Subscriptions: []client.WebhookSubscription{{EventType: "BALANCE_CONFIRMED_UPDATES"}}}); err != nil {
			return fmt.Errorf("create_webhook_endpoint %d: %w", i, err)
		}
	}
	for lo := 0; lo < adoptPolicies; lo += adoptPolicyBatch {
		var ps []client.PolicyParams
		for i := lo; i < min(lo+adoptPolicyBatch, adoptPolicies); i++ {
			ps = append(ps, policyParams(i))
		}
		if _, err := c.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: ps}); err != nil {
			return fmt.Errorf("create_policies %d-%d: %w", lo, lo+len(ps)-1, err)
		}
	}
	return nil
}

// emulatorClient is a client of the emulator with its CUSTODY_* credentials.
func emulatorClient(env []string) (*client.Client, error) {
	v := map[string]string{}
	for _, kv := range env {
		k, val, _ := strings.Cut(kv, "=")
		v[k] = val
	}
	return client.New(client.Config{BaseURL: v["CUSTODY_BASE_URL"], OrganizationID: v["CUSTODY_ORGANIZATION_ID"],
		APIPublicKey: v["CUSTODY_API_PUBLIC_KEY"], APIPrivateKey: v["CUSTODY_API_PRIVATE_KEY"],
		PollInterval: 10 * time.Millisecond, PollIntervalMax: 50 * time.Millisecond})
}

// runAdopts runs the row's two flows o.runs times (nil unless -configs selects it).
func runAdopts(ctx context.Context, t *tools, o *options) []*adoptResult {
	if !o.adopt {
		return nil
	}
	var out []*adoptResult
	for r := range o.runs {
		if ctx.Err() != nil {
			break
		}
		res := runAdopt(ctx, t, r, o)
		res.query = runAdoptQuery(ctx, t, r, o)
		out = append(out, res)
		if len(res.failures()) > 0 && !o.keepGoing {
			break
		}
	}
	return out
}

// runAdopt is one run: a fresh emulator, the organization, and the three
// commands in a fresh working directory, then the check.
func runAdopt(ctx context.Context, t *tools, r int, o *options) *adoptResult {
	res := &adoptResult{run: r, steps: map[string]*phaseResult{}}
	dir := filepath.Join(t.work, "ws", fmt.Sprintf("%s-r%d", adoptName, r+1))
	par := "-parallelism=" + strconv.Itoa(o.parallelism)
	f := &adoptFlow{what: "adopt", dir: dir, hcl: adoptHCL, order: append(adoptSteps, adoptCheck),
		cmds: map[string][]tfCommand{
			adoptRead: {{args: []string{"apply", "-auto-approve", "-input=false", "-no-color", par},
				want: "Apply complete! Resources: 0 added, 0 changed, 0 destroyed."}},
			adoptGenerate: {
				{args: []string{"output", "-raw", "import_blocks"}, stdout: "imports.tf"},
				{args: []string{"plan", "-input=false", "-no-color", par, "-generate-config-out=generated.tf"}, want: " to import, "},
			},
			adoptImport: {
				{args: []string{"output", "-raw", "exclusive_blocks"}, stdout: "exclusive.tf"},
				{args: []string{"apply", "-auto-approve", "-input=false", "-no-color", par}, want: "Apply complete! Resources: "},
			},
			adoptCheck: {{args: []string{"plan", "-input=false", "-detailed-exitcode", "-no-color", par}, want: "No changes."}},
		},
		populated: func(s float64) {
			res.populate = s
			logf("adopt run %d  populated %d policies, %d tags on %d keys, %d webhook endpoints in %.2fs",
				r+1, adoptPolicies, adoptTags, adoptKeys, adoptWebhooks, s)
		},
		check: func(st, log string) (err error) {
			switch st {
			case adoptGenerate:
				res.blocks, err = importBlocksIn(dir, "imports.tf")
			case adoptImport:
				res.imported, res.changed, err = importedCount(log)
			}
			return err
		}}
	if res.err = f.run(ctx, t, r, res.steps); res.err == nil {
		logf("adopt run %d  total %.2fs (%d import blocks, %d imported)", r+1, res.total(), res.blocks, res.imported)
	}
	return res
}

// tfCommand is one terraform command of a step.
type tfCommand struct {
	args   []string
	stdout string // file in the working directory for its standard output ("": the step's log)
	want   string // what its output must contain ("": nothing)
}

// runSteps runs the commands of one step one after the other, as a user
// would type them, each must exit 0, and measures them together as
// runPhase measures one: wall time from the first start to the last exit,
// CPU, the provider's memory and the emulator's requests. It returns the
// step's log.
func runSteps(ctx context.Context, t *tools, emu *emulatorProc, dir, step string, cmds []tfCommand, env []string) (*phaseResult, string, error) {
	usageFile := filepath.Join(dir, "provider-usage-"+step)
	logPath := filepath.Join(dir, "terraform-"+step+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	defer func() { _ = logFile.Close() }()
	if err := emu.resetCounts(); err != nil {
		return nil, "", err
	}
	p := &phaseResult{}
	cpu0 := emu.cpuSeconds()
	t0 := time.Now()
	for _, c := range cmds {
		cmd := exec.CommandContext(ctx, t.terraform, append([]string{"-chdir=" + dir}, c.args...)...)
		cmd.Env = append(env, "PEAKRSS_OUT="+usageFile)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if c.stdout != "" {
			f, err := os.Create(filepath.Join(dir, c.stdout))
			if err != nil {
				return nil, "", err
			}
			defer func() { _ = f.Close() }()
			cmd.Stdout = f
		}
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = time.Minute
		runErr := cmd.Run()
		if ps := cmd.ProcessState; ps != nil {
			p.tfCPU += ps.UserTime().Seconds() + ps.SystemTime().Seconds()
		}
		if runErr != nil {
			what := "terraform " + strings.Join(c.args, " ")
			if step == adoptCheck && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 2 {
				return nil, "", fmt.Errorf("%s: the plan after the imports is not empty (exit 2): the adopted configuration does not converge; see %s:%s", what, logPath, tail(logPath, 30))
			}
			return nil, "", fmt.Errorf("%s: %v:%s", what, runErr, tail(logPath, 30))
		}
	}
	p.wall = time.Since(t0).Seconds()
	p.emuCPU = emu.cpuSeconds() - cpu0
	if p.counts, err = emu.counts(); err != nil {
		return nil, "", err
	}
	u, err := readUsage(usageFile)
	if err != nil {
		return nil, "", err
	}
	p.rssKiB, p.provCPU, p.starts = u.maxRSSKiB, u.cpu, u.starts
	out, err := os.ReadFile(logPath)
	if err != nil {
		return nil, "", err
	}
	for _, c := range cmds {
		if c.want != "" && !strings.Contains(string(out), c.want) {
			return nil, "", fmt.Errorf("the output lacks %q; see %s:%s", c.want, logPath, tail(logPath, 30))
		}
	}
	return p, string(out), nil
}

var importBlock = regexp.MustCompile(`(?m)^\s*import\s*\{`)

// countImportBlocks counts the import blocks of rendered HCL.
func countImportBlocks(hcl string) int { return len(importBlock.FindAllStringIndex(hcl, -1)) }

var applyCounts = regexp.MustCompile(`Apply complete! Resources: (\d+) imported, (\d+) added, (\d+) changed, (\d+) destroyed\.`)

// importedCount reads the import step's apply summary, imported and
// changed: it must import at least the policies, tags and endpoints, and
// add and destroy nothing. A change is reported, not refused: the check
// after it says whether the configuration converged.
func importedCount(log string) (imported, changed int, err error) {
	m := applyCounts.FindStringSubmatch(log)
	if m == nil {
		return 0, 0, errors.New(`the apply printed no "Apply complete! Resources: N imported, ..." line`)
	}
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	switch {
	case n[0] < adoptObjects:
		err = fmt.Errorf("%d imported, fewer than the %d policies, tags and endpoints", n[0], adoptObjects)
	case n[1] != 0 || n[3] != 0:
		err = fmt.Errorf("the imports' apply added %d and destroyed %d objects: adopting must only import (%s)", n[1], n[3], m[0])
	}
	return n[0], n[2], err
}
