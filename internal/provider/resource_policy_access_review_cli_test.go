package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The access review's acceptance tests: the real CLI plans policy changes
// against the emulator, whose organization also holds policies made
// through the client (unmanaged), and the tests read the plan's warnings
// and errors from `terraform plan -json`. Every row a warning shows is
// checked three ways: policy_changes over the same before and after sets
// gives the same rows, and policy_decision over each set gives the
// row's outcomes for its example request, so the report cannot drift from
// the engine.
//
// This file is the tests' world and its helpers; the tests are in
// resource_policy_access_review_cli_{changes,findings,unjudged}_test.go.

// reviewPolicy is one policy of a review test.
type reviewPolicy struct{ name, effect, condition, consensus string }

// The unmanaged policies of every review test: signing needs two
// approvers, exporting a key needs two, exporting a wallet is denied.
var reviewUnmanaged = []reviewPolicy{
	{"signing needs two approvers", client.EffectAllow, "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'", "approvers.count() >= 2"},
	{"key export needs two approvers", client.EffectAllow, "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'", "approvers.count() >= 2"},
	{"wallet export denied", client.EffectDeny, "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'", ""},
}

// The managed policies every review test starts from, by resource name: a
// transfer limit of 10 ETH for one signer alone, and wallets made by three.
var reviewManaged = map[string]reviewPolicy{
	"transfer_limit": {"transfers up to the limit alone", client.EffectAllow,
		"activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 10000000000000000000", ""},
	"wallets": {"wallets need three", client.EffectAllow, "activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.count() >= 3"},
}

// reviewControls are the provider's controls in every review test: raw
// payload signing is never allowed alone (the widening change breaks it,
// no other change does), wallet export is denied (never broken).
const reviewControls = `
provider "custody" {
  controls = [
    {
      name           = "raw signing never alone"
      activity_types = ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"]
      at_most        = "consensus"
    },
    {
      name           = "wallet export denied"
      activity_types = ["ACTIVITY_TYPE_EXPORT_WALLET"]
      at_most        = "denied"
    },
  ]
}
`

// withControl is reviewControls with one more control first, on one
// activity type.
func withControl(name, activityType, atMost string) string {
	return strings.Replace(reviewControls, "  controls = [\n", fmt.Sprintf(`  controls = [
    {
      name           = %q
      activity_types = [%q]
      at_most        = %q
    },
`, name, activityType, atMost), 1)
}

// reviewWorld is an organization with the unmanaged policies and the
// managed ones applied, and a CLI working directory that manages them.
type reviewWorld struct {
	t        *testing.T
	e        *accEmulator
	cli      *tfCLI
	controls string // the provider block every plan is written with
}

func newReviewWorld(t *testing.T) *reviewWorld {
	t.Helper()
	return newReviewWorldOf(t, reviewManaged, reviewControls)
}

// newReviewWorldOf is a world whose managed policies are managed and
// whose provider block is controls.
func newReviewWorldOf(t *testing.T, managed map[string]reviewPolicy, controls string) *reviewWorld {
	t.Helper()
	e := newAccEmulator(t)
	params := make([]client.PolicyParams, len(reviewUnmanaged))
	for i, p := range reviewUnmanaged {
		params[i] = client.PolicyParams{PolicyName: p.name, Effect: p.effect, Condition: p.condition, Consensus: p.consensus}
	}
	if _, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: params}); err != nil {
		t.Fatal(err)
	}
	w := &reviewWorld{t: t, e: e, cli: newTFCLI(t, e), controls: controls}
	// The starting point is applied without the controls: a control the
	// test means its change to break may not hold for the policies' creates.
	w.cli.write(reviewResources(managed))
	w.cli.mustRun(0, "apply", "-auto-approve")
	return w
}

// reviewResources is the HCL of the managed policies.
func reviewResources(managed map[string]reviewPolicy) string {
	var b strings.Builder
	for _, res := range slices.Sorted(maps.Keys(managed)) {
		p := managed[res]
		fmt.Fprintf(&b, "\nresource \"custody_policy\" %q {\n  name   = %q\n  effect = %q\n", res, p.name, p.effect)
		writeOptionalAttr(&b, "condition", p.condition)
		writeOptionalAttr(&b, "consensus", p.consensus)
		b.WriteString("}\n")
	}
	return b.String()
}

// policySetHCL is a policy set as a list of objects for the functions.
func policySetHCL(managed map[string]reviewPolicy) string {
	var b strings.Builder
	b.WriteString("[\n")
	all := slices.Clone(reviewUnmanaged)
	for _, res := range slices.Sorted(maps.Keys(managed)) {
		all = append(all, managed[res])
	}
	for _, p := range all {
		fmt.Fprintf(&b, "    { name = %q, effect = %q, condition = %s, consensus = %s },\n", p.name, p.effect, hclOptional(p.condition),
			hclOptional(p.consensus))
	}
	b.WriteString("  ]")
	return b.String()
}

func hclOptional(s string) string {
	if s == "" {
		return "null"
	}
	return fmt.Sprintf("%q", s)
}

// planDiagnostic is a diagnostic of `terraform plan -json`.
type planDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Address  string `json:"address"`
}

// planJSON plans body (after the world's controls) with -json and returns the
// exit code and the diagnostics.
func (w *reviewWorld) planJSON(body string) (int, []planDiagnostic) {
	w.t.Helper()
	w.cli.write(w.controls + body)
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode", "-json")
	return code, planDiagnostics(out)
}

// planDiagnostics are the diagnostics of out, the output of a `terraform
// plan -json`, but the harness's dev_overrides warning.
func planDiagnostics(out string) []planDiagnostic {
	var diags []planDiagnostic
	for line := range strings.SplitSeq(out, "\n") {
		var msg struct {
			Type       string         `json:"type"`
			Diagnostic planDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" &&
			msg.Diagnostic.Summary != "Provider development overrides are in effect" {
			diags = append(diags, msg.Diagnostic)
		}
	}
	return diags
}

// reviewDiags are the diagnostics whose summary starts with prefix.
func reviewDiags(diags []planDiagnostic, prefix string) []planDiagnostic {
	var out []planDiagnostic
	for _, d := range diags {
		if strings.HasPrefix(d.Summary, prefix) {
			out = append(out, d)
		}
	}
	return out
}

// changeRow is a row of policy_changes.
type changeRow struct {
	ActivityType  string   `json:"activity_type"`
	ActivityTypes []string `json:"activity_types"`
	Region        string   `json:"region"`
	Proved        bool     `json:"proved"`
	Before        string   `json:"before"`
	After         string   `json:"after"`
	Example       string   `json:"example"`
	Words         string   `json:"words"`
}

// line is the row's first line, as the warning shows it.
func (r changeRow) line() string {
	return fmt.Sprintf("%s: %s -> %s", strings.Join(r.ActivityTypes, ", "), r.Before, r.After)
}

// applyOverSets applies, in a working directory of its own, the policy
// sets before and after (the unmanaged policies and the managed ones
// given) as locals of those names, and body; it returns the directory.
func (w *reviewWorld) applyOverSets(before, after map[string]reviewPolicy, body string) *tfCLI {
	w.t.Helper()
	c := newTFCLI(w.t, w.e)
	c.write(fmt.Sprintf("locals {\n  before = %s\n  after = %s\n}\n", policySetHCL(before), policySetHCL(after)) + body)
	c.mustRun(0, "apply", "-auto-approve")
	return c
}

// functionRows runs policy_changes over the sets before and after and
// returns its rows.
func (w *reviewWorld) functionRows(before, after map[string]reviewPolicy) []changeRow {
	w.t.Helper()
	c := w.applyOverSets(before, after, `
output "rows" {
  value = provider::custody::policy_changes(local.before, local.after)
}
`)
	var rows []changeRow
	if err := json.Unmarshal([]byte(c.mustRun(0, "output", "-json", "rows")), &rows); err != nil {
		w.t.Fatal(err)
	}
	return rows
}

// decideEach is policy_decision's outcome for each request (HCL) over the
// sets before and after: one pair [before, after] per request.
func (w *reviewWorld) decideEach(before, after map[string]reviewPolicy, requests []string) [][]string {
	w.t.Helper()
	var b strings.Builder
	for i, r := range requests {
		fmt.Fprintf(&b, "\nlocals {\n  request_%d = %s\n}\n", i, r)
		fmt.Fprintf(&b, "output \"decided_%d\" {\n  value = [provider::custody::policy_decision(local.before, local.request_%d).outcome, "+
			"provider::custody::policy_decision(local.after, local.request_%d).outcome]\n}\n", i, i, i)
	}
	c := w.applyOverSets(before, after, b.String())
	var outputs map[string]struct {
		Value []string `json:"value"`
	}
	if err := json.Unmarshal([]byte(c.mustRun(0, "output", "-json")), &outputs); err != nil {
		w.t.Fatal(err)
	}
	out := make([][]string, len(requests))
	for i := range requests {
		out[i] = outputs[fmt.Sprintf("decided_%d", i)].Value
	}
	return out
}

// replay feeds each row's example back through policy_decision over the
// before and after sets and checks the outcomes the row reports.
func (w *reviewWorld) replay(before, after map[string]reviewPolicy, rows []changeRow) {
	w.t.Helper()
	if len(rows) == 0 {
		return
	}
	examples := make([]string, len(rows))
	for i, r := range rows {
		examples[i] = r.Example
	}
	for i, got := range w.decideEach(before, after, examples) {
		if r := rows[i]; len(got) != 2 || got[0] != r.Before || got[1] != r.After {
			w.t.Errorf("policy_decision decides the example of %q as %v, not [%s %s]:\n%s", r.line(), got, r.Before, r.After, r.Example)
		}
	}
}

// flat is text with its white space collapsed, to compare a warning's
// indented lines with the function's strings.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkChange plans the managed policies after, with the controls, and
// checks that the one Access change warning is on address, that its rows
// are policy_changes' rows for the same sets (before: the managed
// policies applied), and that each example decides as its row says. It
// returns the rows and the diagnostics.
func (w *reviewWorld) checkChange(before, after map[string]reviewPolicy, address string, wantExit int) ([]changeRow, []planDiagnostic) {
	w.t.Helper()
	code, diags := w.planJSON(reviewResources(after))
	if code != wantExit {
		w.t.Fatalf("plan exited %d, want %d: %+v", code, wantExit, diags)
	}
	changes := reviewDiags(diags, "Access change: ")
	if len(changes) != 1 || changes[0].Address != address {
		w.t.Fatalf("want one Access change warning, on %q; got %+v", address, changes)
	}
	warning := changes[0]
	w.t.Logf("%s (%s):\n%s", warning.Summary, warning.Address, warning.Detail)
	rows := w.functionRows(before, after)
	if len(rows) == 0 {
		w.t.Fatalf("policy_changes finds no row, the plan warned:\n%s", warning.Detail)
	}
	// The warning shows the first rows, in the function's order, each with
	// its words and example.
	detail := flat(warning.Detail)
	at := 0
	for i, r := range rows[:min(len(rows), accessReviewRows)] {
		part := flat("  " + r.line() + "\n" + r.Words)
		j := strings.Index(detail[at:], part)
		if j < 0 {
			w.t.Fatalf("row %d of policy_changes, %q, is not in the warning (in order):\n%s", i, part, warning.Detail)
		}
		at += j + len(part)
		if !strings.Contains(detail, flat(r.Example)) {
			w.t.Errorf("the example of row %d is not in the warning:\n%s\n---\n%s", i, r.Example, warning.Detail)
		}
	}
	if len(rows) > accessReviewRows && !strings.Contains(warning.Detail, fmt.Sprintf("and %d more", len(rows)-accessReviewRows)) {
		w.t.Errorf("the warning should say \"and %d more\":\n%s", len(rows)-accessReviewRows, warning.Detail)
	}
	if strings.Count(warning.Detail, "Proved over ") != 1 {
		w.t.Errorf("the warning should end with what it proved:\n%s", warning.Detail)
	}
	w.replay(before, after, rows)
	return rows, diags
}

// with is the managed policies with res set to p (or removed, for a zero p).
func with(managed map[string]reviewPolicy, res string, p reviewPolicy) map[string]reviewPolicy {
	out := maps.Clone(managed)
	if p == (reviewPolicy{}) {
		delete(out, res)
	} else {
		out[res] = p
	}
	return out
}
