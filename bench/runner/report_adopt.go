package main

import (
	"fmt"
	"slices"
	"strings"
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
		"1. `terraform apply` of `data \"custody_import_blocks\" \"all\" {}` and an output of its `hcl`; "+
		"2. `terraform output -raw import_blocks > imports.tf && terraform plan -generate-config-out=generated.tf`; "+
		"3. `terraform apply`, the imports. Then `terraform plan -detailed-exitcode` must exit 0; it is not in the total. "+
		"%d successful run(s) of %d. Wall time in seconds: median (min–max).\n\n", adoptPolicies, adoptTags, adoptKeys, adoptWebhooks,
		r.o.parallelism, len(runs), len(r.adopts))
	steps := make([]map[string]*phaseResult, len(runs))
	for i, a := range runs {
		steps[i] = a.steps
	}
	if !r.adoptStepsTable(steps, append(slices.Clone(adoptSteps), adoptCheck), map[string]string{
		adoptRead:     "1. apply: read the organization",
		adoptGenerate: "2. output > imports.tf, plan -generate-config-out",
		adoptImport:   "3. apply: import",
		adoptCheck:    "check: plan -detailed-exitcode (not in the total)",
	}) {
		r.queryTable()
		return
	}
	tot := make([]float64, len(runs))
	pop := make([]float64, len(runs))
	var blocks, imported, changed []string
	for i, a := range runs {
		tot[i], pop[i] = a.total(), a.populate
		blocks = append(blocks, fmt.Sprint(a.blocks))
		imported = append(imported, fmt.Sprint(a.imported))
		changed = append(changed, fmt.Sprint(a.changed))
	}
	r.printf("| **total (1 + 2 + 3)** | **%s** | | | |\n", spread(tot))
	r.printf("\nImport blocks rendered, per run: %s; imported by step 3: %s; changed by step 3 (0 when the generated configuration matches the objects): %s. "+
		"Making the organization through the client (not timed in the row): %s s.\n",
		strings.Join(blocks, ", "), strings.Join(imported, ", "), strings.Join(changed, ", "), spread(pop))
	r.queryTable()
}

// adoptStepsTable is the table of an adopt flow's steps, in order, each
// named by names, from each successful run's steps; with none, it says so
// and returns false.
func (r *reportWriter) adoptStepsTable(runs []map[string]*phaseResult, order []string, names map[string]string) bool {
	if len(runs) == 0 {
		r.printf("No run succeeded.\n")
		return false
	}
	r.printf("| step | wall | CPU: terraform / provider / emulator | provider peak RSS (MiB) | emulator requests |\n|---|---|---|---|---|\n")
	for _, st := range order {
		ps := make([]*phaseResult, 0, len(runs))
		for _, steps := range runs {
			ps = append(ps, steps[st])
		}
		r.adoptStepRow(names[st], ps)
	}
	return true
}

// adoptStepRow is the row of one step of the adopt row's tables, from its
// runs ps: the wall time's median (min–max), each process's median CPU,
// the provider's peak RSS over the runs and the requests of the run that
// made the most.
func (r *reportWriter) adoptStepRow(name string, ps []*phaseResult) {
	of := func(f func(*phaseResult) float64) []float64 {
		v := make([]float64, len(ps))
		for i, p := range ps {
			v[i] = f(p)
		}
		return v
	}
	var rss int64
	most := ps[0].counts
	for _, p := range ps {
		rss = max(rss, p.rssKiB)
		if total(p.counts) > total(most) {
			most = p.counts
		}
	}
	req := fmt.Sprint(total(most))
	if ops := opsByCount(most, func(string) bool { return true }); len(ops) > 0 {
		parts := make([]string, len(ops))
		for i, op := range ops {
			parts[i] = fmt.Sprintf("%s ×%d", op, most[op])
		}
		req += " (" + strings.Join(parts, ", ") + ")"
	}
	r.printf("| %s | %s | %.2f / %.2f / %.2f | %.1f | %s |\n", name, spread(of(wall)),
		median(of(func(p *phaseResult) float64 { return p.tfCPU - p.provCPU })),
		median(of(func(p *phaseResult) float64 { return p.provCPU })),
		median(of(func(p *phaseResult) float64 { return p.emuCPU })), float64(rss)/1024, req)
}

// spread is "median (min–max)" of v.
func spread(v []float64) string {
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(v), slices.Min(v), slices.Max(v))
}

// adoptTargetRow: the three commands together under adoptTarget, median
// over the runs.
func (r *reportWriter) adoptTargetRow() {
	runs := r.okAdopts()
	var tot []float64
	for _, a := range runs {
		tot = append(tot, a.total())
	}
	m := "–"
	if len(tot) > 0 {
		m = fmt.Sprintf("%.2fs median total (%.2f–%.2f; %.2f + %.2f + %.2f)", median(tot), slices.Min(tot), slices.Max(tot),
			r.adoptStepMedian(runs, adoptRead), r.adoptStepMedian(runs, adoptGenerate), r.adoptStepMedian(runs, adoptImport))
	}
	r.row(fmt.Sprintf("adopt %d policies, %d tags, %d webhook endpoints end to end in under %.0f s", adoptPolicies, adoptTags, adoptWebhooks, adoptTarget.Seconds()),
		m, len(tot) > 0 && median(tot) < adoptTarget.Seconds(), len(tot) > 0)
	r.queryTargetRow()
}

func (r *reportWriter) adoptStepMedian(runs []*adoptResult, step string) float64 {
	v := make([]float64, 0, len(runs))
	for _, a := range runs {
		v = append(v, a.steps[step].wall)
	}
	return median(v)
}
