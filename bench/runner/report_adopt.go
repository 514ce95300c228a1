package main

import (
	"fmt"
	"slices"
)

// okAdopts are the runs of the adopt row that succeeded.
func (r *reportWriter) okAdopts() []*adoptResult {
	var out []*adoptResult
	for _, a := range r.adopts {
		if a.err == nil {
			out = append(out, a)
		}
	}
	return out
}

// adoptTable is the report's section on the adopt row: each step's wall
// time, the total, CPU and requests.
func (r *reportWriter) adoptTable() {
	if !r.o.adopt {
		return
	}
	runs := r.okAdopts()
	r.printf("\n## Adopt\n\n")
	r.printf("An organization of %d policies, %d private key tags (on %d keys) and %d webhook endpoints, made through the client, "+
		"brought under Terraform with the user guide's three commands in a fresh working directory (`-parallelism=%d`): "+
		"1. `terraform apply` of `data \"custody_import_blocks\" \"all\" {}` and outputs of its `hcl` and `exclusive_hcl`; "+
		"2. `terraform output -raw import_blocks > imports.tf && terraform plan -generate-config-out=generated.tf`; "+
		"3. `terraform output -raw exclusive_blocks > exclusive.tf && terraform apply`, the imports (the exclusive resources' "+
		"too, which declare each collection whole). Then `terraform plan -detailed-exitcode` must exit 0; it is not in the total. "+
		"%d successful run(s) of %d. Wall time in seconds: median (min–max).\n\n", adoptPolicies, adoptTags, adoptKeys, adoptWebhooks,
		r.o.parallelism, len(runs), len(r.adopts))
	if !flowTable(r, runs, append(slices.Clone(adoptSteps), adoptCheck), map[string]string{
		adoptRead:     "1. apply: read the organization",
		adoptGenerate: "2. output > imports.tf, plan -generate-config-out",
		adoptImport:   "3. output > exclusive.tf, apply: import",
		adoptCheck:    "check: plan -detailed-exitcode (not in the total)",
	}, "1 + 2 + 3") {
		r.queryTable()
		return
	}
	r.printf("\nImport blocks rendered, per run: %s; imported by step 3: %s; changed by step 3 (0 when the generated configuration matches the objects): %s. "+
		"Making the organization through the client (not timed in the row): %s s.\n",
		perRun(runs, func(a *adoptResult) int { return a.blocks }), perRun(runs, func(a *adoptResult) int { return a.imported }),
		perRun(runs, func(a *adoptResult) int { return a.changed }), spread(each(runs, func(a *adoptResult) float64 { return a.populate })))
	r.queryTable()
}

// adoptTargetRow: the three commands together under adoptTarget, median
// over the runs.
func (r *reportWriter) adoptTargetRow() {
	runs := r.okAdopts()
	tot := totals(runs)
	m := "–"
	if len(tot) > 0 {
		m = fmt.Sprintf("%.2fs median total (%.2f–%.2f; %.2f + %.2f + %.2f)", median(tot), slices.Min(tot), slices.Max(tot),
			stepMedian(runs, adoptRead), stepMedian(runs, adoptGenerate), stepMedian(runs, adoptImport))
	}
	r.row(fmt.Sprintf("adopt %d policies, %d tags, %d webhook endpoints end to end in under %.0f s", adoptPolicies, adoptTags, adoptWebhooks, adoptTarget.Seconds()),
		m, len(tot) > 0 && median(tot) < adoptTarget.Seconds(), len(tot) > 0)
	r.queryTargetRow()
}
