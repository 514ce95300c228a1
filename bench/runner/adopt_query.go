package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The adopt row's second flow (issue 41): the same organization adopted
// the guide's other way, `terraform query -generate-config-out`, which
// Terraform 1.14 and later have and OpenTofu has not. Each run makes the
// organization afresh in an emulator of its own, so that neither flow
// finds the other's work, and runs the guide's three commands in a fresh
// working directory with the guide's list blocks, timed per step like the
// first flow.

// adoptQuery is the query step: terraform query -generate-config-out.
// adoptExclusive is the plan that writes the exclusive resources'
// configuration (terraform plan -generate-config-out). The import and
// check steps keep the first flow's names.
const (
	adoptQuery     = "query"
	adoptExclusive = "exclusive"
)

// queryFlowSteps are the steps in the total; the check comes after.
var queryFlowSteps = []string{adoptQuery, adoptExclusive, adoptImport}

// queryFile is where the guide's list blocks go, exclusiveFile the
// exclusive resources' import blocks, and generatedExclusive their
// configuration, which the exclusive step writes.
const (
	queryFile          = "adopt.tfquery.hcl"
	exclusiveFile      = "exclusive.tf"
	generatedExclusive = "generated_exclusive.tf"
)

// queryRun is one run of the terraform query flow.
type queryRun struct {
	steps    map[string]*phaseResult
	listed   map[string]int // results terraform query printed, by list block
	blocks   int            // import blocks in generated.tf
	imported int            // "N imported" of the import step's apply
	changed  int            // "N changed" of it
	err      error
}

// total is the wall time of the query and the imports.
func (q *queryRun) total() float64 { return wallOf(q.steps, queryFlowSteps) }

// adoptEnv is the environment of an adopt run's terraform commands: the
// runner's dev_overrides (no terraform init, as the guide says for a
// local build), the wrapper that measures the provider, and the
// emulator's credentials.
func adoptEnv(t *tools, emu *emulatorProc) []string {
	env := append(cleanEnv(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE="+t.cliConfig,
		"PEAKRSS_EXEC="+filepath.Join(t.realDir, "terraform-provider-custody"))
	return append(env, emu.env...)
}

// runAdoptQuery is run r of the query flow, or nil when it does not run
// (no CLI has query: the report says why).
func runAdoptQuery(ctx context.Context, t *tools, r int, o *options) *queryRun {
	if o.query.cli.Path == "" {
		return nil
	}
	res := &queryRun{steps: map[string]*phaseResult{}}
	dir := filepath.Join(t.work, "ws", fmt.Sprintf("%s-query-r%d", adoptName, r+1))
	// The guide's commands; -auto-approve stands for the "yes" a user
	// types, -input=false and -no-color for running unattended, and the
	// row's -parallelism where Terraform takes it (query does not).
	par := "-parallelism=" + strconv.Itoa(o.parallelism)
	f := &adoptFlow{what: "adopt query", label: "query flow ", dir: dir, terraform: o.query.cli.Path,
		// main.tf: only the provider block, as the guide asks.
		hcl: custodyProvider, files: map[string]string{queryFile: o.query.listBlocks, exclusiveFile: o.query.exclusive},
		order: append(queryFlowSteps, adoptCheck),
		cmds: map[string][]tfCommand{
			adoptQuery: {{args: []string{"query", "-generate-config-out=generated.tf", "-no-color"}}},
			adoptExclusive: {{args: []string{"plan", "-input=false", "-no-color", par, "-generate-config-out=" + generatedExclusive},
				want: " to import, "}},
			adoptImport: {{args: []string{"apply", "-auto-approve", "-input=false", "-no-color", par}, want: "Apply complete! Resources: "}},
			adoptCheck:  {{args: []string{"plan", "-detailed-exitcode", "-input=false", "-no-color", par}, want: "No changes."}},
		},
		check: func(st, log string) (err error) {
			switch st {
			case adoptQuery:
				res.listed = listedByBlock(log)
				if res.blocks, err = importBlocksIn(dir, "generated.tf"); err != nil {
					err = fmt.Errorf("%w (listed: %v)", err, res.listed)
				}
			case adoptExclusive:
				err = exclusivesIn(dir, generatedExclusive)
			case adoptImport:
				res.imported, res.changed, err = importedCount(log)
			}
			return err
		}}
	if res.err = f.run(ctx, t, r, res.steps); res.err == nil {
		logf("adopt run %d  query flow total %.2fs (%d listed, %d import blocks, %d imported)", r+1, res.total(), sum(res.listed), res.blocks, res.imported)
	}
	return res
}

// exclusivesIn checks that Terraform wrote, into file in dir, the
// configuration of the four exclusive resources the guide imports.
func exclusivesIn(dir, file string) error {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	for _, typ := range []string{"custody_policies_exclusive", "custody_private_key_tags_exclusive",
		"custody_webhook_endpoints_exclusive", "custody_oauth_providers_exclusive"} {
		if !strings.Contains(string(b), `resource "`+typ+`" `) {
			return fmt.Errorf("%s has no %s", file, typ)
		}
	}
	return nil
}

// listedResult is a result line of terraform query: the list block's
// address, then its columns two or more spaces apart. A warning that
// names list blocks wraps them with a comma after each, so it does not
// match.
var listedResult = regexp.MustCompile(`(?m)^list\.([a-z0-9_]+\.[A-Za-z0-9_-]+) {2,}\S`)

// listedByBlock counts the results of terraform query's output by list
// block ("custody_policy.policy").
func listedByBlock(log string) map[string]int {
	out := map[string]int{}
	for _, m := range listedResult.FindAllStringSubmatch(log, -1) {
		out[m[1]]++
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// failures are the run's failed flows, for the runner's list of failures.
func (a *adoptResult) failures() []string {
	var out []string
	if a.err != nil {
		out = append(out, fmt.Sprintf("%s run %d: %v", adoptName, a.run+1, a.err))
	}
	if a.query != nil && a.query.err != nil {
		out = append(out, fmt.Sprintf("%s run %d, terraform query: %v", adoptName, a.run+1, a.query.err))
	}
	return out
}
