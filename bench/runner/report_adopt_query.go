package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The adopt section's part on the terraform query flow, and its target
// row. When the flow did not run, both say why: the row has two flows,
// and a report that left one out without a word would pass for one
// where it had been measured.

// queryRuns are the runs of the terraform query flow that ran, and of
// them those that succeeded.
func (r *reportWriter) queryRuns() (ran, ok []*queryRun) {
	for _, a := range r.adopts {
		if a.query != nil {
			ran = append(ran, a.query)
			if a.query.err == nil {
				ok = append(ok, a.query)
			}
		}
	}
	return ran, ok
}

// queryTable is the terraform query flow's table, after the first flow's.
func (r *reportWriter) queryTable() {
	r.printf("\n### With terraform query\n\n")
	q := r.o.query
	if q.cli.Path == "" {
		r.printf("**Not run:** %s.\n", q.skip)
		return
	}
	ran, runs := r.queryRuns()
	r.printf("The same organization, made afresh in an emulator of its own in each run, brought under Terraform the guide's other way "+
		"(its section \"Terraform 1.14 and later: terraform query\") with %s (`%s`, %s): the guide's list blocks as they are written there, in `%s`, "+
		"next to a `main.tf` with only the provider block, and no `terraform init` (the provider is the runner's dev_overrides build). "+
		"and the guide's import blocks of the exclusive resources in `%s`. "+
		"1. `terraform query -generate-config-out=generated.tf`; 2. `terraform plan -generate-config-out=%s`, which writes the "+
		"exclusive resources' configuration; 3. `terraform apply`, the imports. "+
		"Then `terraform plan -detailed-exitcode` must exit 0; it is not in the total. "+
		"`-auto-approve` for the apply, `-input=false` and `-parallelism=%d` for apply and plan, `-no-color` for all of them. "+
		"%d successful run(s) of %d. Wall time in seconds: median (min–max).\n\n",
		q.cli, q.cli.Path, q.from, queryFile, exclusiveFile, generatedExclusive, r.o.parallelism, len(runs), len(ran))
	if !flowTable(r, runs, append(slices.Clone(queryFlowSteps), adoptCheck), map[string]string{
		adoptQuery:     "1. query -generate-config-out",
		adoptExclusive: "2. plan -generate-config-out: the exclusive resources",
		adoptImport:    "3. apply: import",
		adoptCheck:     "check: plan -detailed-exitcode (not in the total)",
	}, "1 + 2 + 3") {
		return
	}
	r.printf("\nListed by step 1, per run: %s (in the first: %s); import blocks in `generated.tf`: %s; imported by step 3: %s; "+
		"changed by step 3: %s. The check exited 0 (\"No changes.\") in each of these runs.\n",
		perRun(runs, func(q *queryRun) int { return sum(q.listed) }), byBlock(runs[0].listed), perRun(runs, func(q *queryRun) int { return q.blocks }),
		perRun(runs, func(q *queryRun) int { return q.imported }), perRun(runs, func(q *queryRun) int { return q.changed }))
}

// byBlock is "custody_policy.policy 300, ..." in the order of the names.
func byBlock(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("`%s` %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// queryTargetRow: the query flow adopts the organization with an empty
// final plan in every run, the query and the imports under adoptTarget
// (median), the same bound as the first flow's.
func (r *reportWriter) queryTargetRow() {
	target := fmt.Sprintf("adopt %d policies, %d tags, %d webhook endpoints with `terraform query` end to end in under %.0f s, the final plan empty (exit 0)",
		adoptPolicies, adoptTags, adoptWebhooks, adoptTarget.Seconds())
	if q := r.o.query; q.cli.Path == "" {
		r.row(target, "not run: "+strings.ReplaceAll(q.skip, "|", `\|`), false, false)
		return
	}
	ran, runs := r.queryRuns()
	tot := totals(runs)
	m := "–"
	if len(tot) > 0 {
		m = fmt.Sprintf("%.2fs median total (%.2f–%.2f; query %.2f + exclusive %.2f + import %.2f; the check %.2f, not in the total); %s imported; final plan exit 0 in %d of %d runs (%s)",
			median(tot), slices.Min(tot), slices.Max(tot), stepMedian(runs, adoptQuery), stepMedian(runs, adoptExclusive), stepMedian(runs, adoptImport),
			stepMedian(runs, adoptCheck),
			perRun(runs, func(q *queryRun) int { return q.imported }), len(runs), len(ran), r.o.query.cli)
	}
	r.row(target, m, len(tot) > 0 && len(runs) == len(ran) && median(tot) < adoptTarget.Seconds(), len(tot) > 0)
}
