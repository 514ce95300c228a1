package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// TestListedByBlock counts terraform query's result lines (as Terraform
// 1.15 prints them with -no-color) by list block; the warning that wraps
// the names of empty list blocks at the start of a line is not a result.
func TestListedByBlock(t *testing.T) {
	out := `
Warning: Provider development overrides are in effect

list.custody_organization_name.org   organization_id=4037eaff-9b41   Emulated Organization
list.custody_policy.policy           id=4b1c-0001                    adopt-policy-000
list.custody_policy.policy           id=4b1c-0002                    adopt-policy-001
list.custody_private_key_tag.tag     id=77aa                         adopt-tag-00

Warning: list block(s) [list.custody_policy.policy,
list.custody_webhook_endpoint.hook, list.custody_ip_allowlist.allowlist,
list.custody_oauth_provider.sso] returned 0
results.
`
	got := listedByBlock(out)
	want := map[string]int{"custody_organization_name.org": 1, "custody_policy.policy": 2, "custody_private_key_tag.tag": 1}
	if len(got) != len(want) || sum(got) != 4 {
		t.Fatalf("listedByBlock = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("listedByBlock = %v, want %v", got, want)
		}
	}
	if s := byBlock(got); s != "`custody_organization_name.org` 1, `custody_policy.policy` 2, `custody_private_key_tag.tag` 1" {
		t.Errorf("byBlock = %q", s)
	}
}

// queryRunOf is a successful query flow with these wall times of query,
// exclusive, import and check.
func queryRunOf(w ...float64) *queryRun {
	q := &queryRun{steps: map[string]*phaseResult{}, listed: map[string]int{"custody_policy.policy": 300, "custody_organization_name.org": 1},
		blocks: 301, imported: 301}
	for i, st := range append(append([]string{}, queryFlowSteps...), adoptCheck) {
		q.steps[st] = &phaseResult{wall: w[i], tfCPU: 2, provCPU: 1, emuCPU: 0.1, rssKiB: 30 << 10, starts: 2,
			counts: map[string]int{"query/list_policies": 1}}
	}
	return q
}

// TestQueryReport: the Adopt section has the query flow's table and the
// targets its row; without a CLI both say it did not run, and why.
func TestQueryReport(t *testing.T) {
	o, adopts := threeAdoptRuns(t)
	o.query = queryFlow{cli: testclis.CLI{Path: "/clis/terraform-1.15", Kind: testclis.Terraform, Version: testclis.Version{1, 15, 9}},
		from: "the first CLI of CUSTODY_TEST_CLIS that has query"}
	adopts[0].query, adopts[1].query, adopts[2].query = queryRunOf(2, 1, 3, 1), queryRunOf(3, 2, 4, 2), queryRunOf(4, 1, 9, 3)
	rep := report(o, environment{}, nil, nil, adopts, nil, nil, time.Minute)
	reportHas(t, rep,
		"### With terraform query\n",
		"with Terraform 1.15.9 (`/clis/terraform-1.15`, the first CLI of CUSTODY_TEST_CLIS that has query)",
		"3 successful run(s) of 3.",
		"| 1. query -generate-config-out | 3.00 (2.00–4.00) | 1.00 / 1.00 / 0.10 | 30.0 | 1 (query/list_policies ×1) |",
		"| 2. plan -generate-config-out: the exclusive resources | 1.00 (1.00–2.00) |",
		"| 3. apply: import | 4.00 (3.00–9.00) |",
		"| check: plan -detailed-exitcode (not in the total) | 2.00 (1.00–3.00) |",
		"| **total (1 + 2 + 3)** | **9.00 (6.00–14.00)** |",
		"Listed by step 1, per run: 301, 301, 301 (in the first: `custody_organization_name.org` 1, `custody_policy.policy` 300);",
		"| adopt 300 policies, 30 tags, 10 webhook endpoints with `terraform query` end to end in under 60 s, the final plan empty (exit 0) | "+
			"9.00s median total (6.00–14.00; query 3.00 + exclusive 1.00 + import 4.00; the check 2.00, not in the total); 301, 301, 301 imported; final plan exit 0 in 3 of 3 runs (Terraform 1.15.9) | met |",
		// The first flow's row is still there.
		"| adopt 300 policies, 30 tags, 10 webhook endpoints end to end in under 60 s | 38.00s median total",
	)

	// A failed run of the query flow: the row is missed, not met on the rest.
	adopts[2].query = &queryRun{err: errors.New("adopt query check: not empty (exit 2)")}
	rep = report(o, environment{}, nil, nil, adopts, nil, []string{"adopt run 3, terraform query: not empty"}, time.Minute)
	reportHas(t, rep, "final plan exit 0 in 2 of 3 runs (Terraform 1.15.9) | **MISSED** |")
	if msgs := adopts[2].failures(); len(msgs) != 1 || !strings.Contains(msgs[0], "adopt run 3, terraform query: adopt query check") {
		t.Errorf("failures = %q", msgs)
	}

	o.query = queryFlow{skip: "no CLI has terraform query (Terraform >= 1.14, not OpenTofu): /usr/bin/terraform (the terraform on PATH) is Terraform 1.11.4"}
	for _, a := range adopts {
		a.query = nil
	}
	rep = report(o, environment{}, nil, nil, adopts, nil, nil, time.Minute)
	reportHas(t, rep,
		"### With terraform query\n\n**Not run:** no CLI has terraform query (Terraform >= 1.14, not OpenTofu): /usr/bin/terraform (the terraform on PATH) is Terraform 1.11.4.\n",
		"the final plan empty (exit 0) | not run: no CLI has terraform query (Terraform >= 1.14, not OpenTofu): /usr/bin/terraform (the terraform on PATH) is Terraform 1.11.4 | not measured |",
	)
}
