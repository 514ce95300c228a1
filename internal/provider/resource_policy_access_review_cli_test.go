package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
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
	t   *testing.T
	e   *accEmulator
	cli *tfCLI
}

func newReviewWorld(t *testing.T) *reviewWorld {
	t.Helper()
	e := newAccEmulator(t)
	params := make([]client.PolicyParams, len(reviewUnmanaged))
	for i, p := range reviewUnmanaged {
		params[i] = client.PolicyParams{PolicyName: p.name, Effect: p.effect, Condition: p.condition, Consensus: p.consensus}
	}
	if _, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: params}); err != nil {
		t.Fatal(err)
	}
	w := &reviewWorld{t: t, e: e, cli: newTFCLI(t, e)}
	w.cli.write(reviewControls + reviewResources(reviewManaged))
	w.cli.mustRun(0, "apply", "-auto-approve")
	return w
}

// reviewResources is the HCL of the managed policies.
func reviewResources(managed map[string]reviewPolicy) string {
	var b strings.Builder
	for _, res := range slices.Sorted(maps.Keys(managed)) {
		p := managed[res]
		fmt.Fprintf(&b, "\nresource \"custody_policy\" %q {\n  name   = %q\n  effect = %q\n", res, p.name, p.effect)
		if p.condition != "" {
			fmt.Fprintf(&b, "  condition = %q\n", p.condition)
		}
		if p.consensus != "" {
			fmt.Fprintf(&b, "  consensus = %q\n", p.consensus)
		}
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

// planJSON plans body (after the controls) with -json and returns the
// exit code and the diagnostics.
func (w *reviewWorld) planJSON(body string) (int, []planDiagnostic) {
	w.t.Helper()
	w.cli.write(reviewControls + body)
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode", "-json")
	var diags []planDiagnostic
	for line := range strings.SplitSeq(out, "\n") {
		var msg struct {
			Type       string         `json:"type"`
			Diagnostic planDiagnostic `json:"diagnostic"`
		}
		// The dev_overrides warning is the harness's, not the plan's.
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" &&
			msg.Diagnostic.Summary != "Provider development overrides are in effect" {
			diags = append(diags, msg.Diagnostic)
		}
	}
	return code, diags
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

// functionRows runs policy_changes over the sets before and after (the
// unmanaged policies and the managed ones given) in a working directory
// of its own, and returns its rows.
func (w *reviewWorld) functionRows(before, after map[string]reviewPolicy) []changeRow {
	w.t.Helper()
	c := newTFCLI(w.t, w.e)
	c.write(fmt.Sprintf(`
locals {
  before = %s
  after = %s
}

output "rows" {
  value = provider::custody::policy_changes(local.before, local.after)
}
`, policySetHCL(before), policySetHCL(after)))
	c.mustRun(0, "apply", "-auto-approve")
	var rows []changeRow
	if err := json.Unmarshal([]byte(c.mustRun(0, "output", "-json", "rows")), &rows); err != nil {
		w.t.Fatal(err)
	}
	return rows
}

// replay feeds each row's example back through policy_decision over the
// before and after sets and checks the outcomes the row reports.
func (w *reviewWorld) replay(before, after map[string]reviewPolicy, rows []changeRow) {
	w.t.Helper()
	if len(rows) == 0 {
		return
	}
	c := newTFCLI(w.t, w.e)
	var b strings.Builder
	fmt.Fprintf(&b, "locals {\n  before = %s\n  after = %s\n}\n", policySetHCL(before), policySetHCL(after))
	for i, r := range rows {
		fmt.Fprintf(&b, "\nlocals {\n  request_%d = %s\n}\n", i, r.Example)
		fmt.Fprintf(&b, "output \"decided_%d\" {\n  value = [provider::custody::policy_decision(local.before, local.request_%d).outcome, "+
			"provider::custody::policy_decision(local.after, local.request_%d).outcome]\n}\n", i, i, i)
	}
	c.write(b.String())
	c.mustRun(0, "apply", "-auto-approve")
	var outputs map[string]struct {
		Value []string `json:"value"`
	}
	if err := json.Unmarshal([]byte(c.mustRun(0, "output", "-json")), &outputs); err != nil {
		w.t.Fatal(err)
	}
	for i, r := range rows {
		got := outputs[fmt.Sprintf("decided_%d", i)].Value
		if len(got) != 2 || got[0] != r.Before || got[1] != r.After {
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

// A new allow that lets one user sign raw payloads with a hot key alone,
// where two approvers were needed: the widening row, and the control on raw signing
// fails the plan on that resource.
func TestAccessReviewCLI_widening(t *testing.T) {
	w := newReviewWorld(t)
	after := with(reviewManaged, "hot_signs", reviewPolicy{"hot keys sign raw payloads alone", client.EffectAllow,
		"activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && private_key.tags.contains('hot')", ""})
	rows, diags := w.checkChange(reviewManaged, after, "custody_policy.hot_signs", 1)
	if rows[0].line() != "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: OUTCOME_REQUIRES_CONSENSUS -> OUTCOME_ALLOW" {
		t.Errorf("the first row should be raw signing, consensus to allow; got %q", rows[0].line())
	}
	broken := reviewDiags(diags, "Control broken: ")
	if len(broken) != 1 || broken[0].Severity != "error" || broken[0].Summary != "Control broken: raw signing never alone" ||
		broken[0].Address != "custody_policy.hot_signs" {
		t.Fatalf("want one Control broken error on custody_policy.hot_signs; got %+v", broken)
	}
	// Its example is one of the rows', which policy_decision replayed.
	shown := false
	for _, r := range rows {
		if r.After == client.OutcomeAllow && r.ActivityType == "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" && strings.Contains(flat(broken[0].Detail), flat(r.Example)) {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the Control broken error should show an example request that the report holds:\n%s", broken[0].Detail)
	}
	if len(reviewDiags(diags, "Control broken before this plan")) != 0 {
		t.Errorf("no control was broken before the plan: %+v", diags)
	}
	// The human output, as the guide quotes it.
	w.cli.write(reviewControls + reviewResources(after))
	out, _ := w.cli.run(nil, "plan")
	t.Logf("terraform plan:\n%s", out)
}

// weiAmount finds wei amounts (19 digits or more) in text.
var weiAmount = regexp.MustCompile(`\d{19,}`)

// Raising the transfer limit from 10 to 20 ETH: the rows are transfers
// between the old and the new limit, now allowed alone.
func TestAccessReviewCLI_transferLimit(t *testing.T) {
	w := newReviewWorld(t)
	raised := reviewManaged["transfer_limit"]
	raised.condition = strings.Replace(raised.condition, "10000000000000000000", "20000000000000000000", 1)
	rows, diags := w.checkChange(reviewManaged, with(reviewManaged, "transfer_limit", raised), "custody_policy.transfer_limit", 2)
	low, _ := new(big.Int).SetString("10000000000000000000", 10)
	high, _ := new(big.Int).SetString("20000000000000000000", 10)
	for _, r := range rows {
		if r.ActivityType != "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" || r.After != client.OutcomeAllow {
			t.Errorf("a raised limit should only allow more transfers; got %q", r.line())
			continue
		}
		amounts := weiAmount.FindAllString(r.Example, -1)
		if len(amounts) == 0 {
			t.Errorf("the example of %q names no amount:\n%s", r.line(), r.Example)
		}
		for _, a := range amounts {
			v, _ := new(big.Int).SetString(a, 10)
			if v.Cmp(low) <= 0 || v.Cmp(high) > 0 {
				t.Errorf("the example of %q transfers %s wei, not between the old and the new limit:\n%s", r.line(), a, r.Example)
			}
		}
	}
	if e := reviewDiags(diags, "Control broken"); len(e) != 0 {
		t.Errorf("no control covers transactions: %+v", e)
	}
}

// A new deny on key export: its line, from consensus to an explicit deny.
func TestAccessReviewCLI_narrowing(t *testing.T) {
	w := newReviewWorld(t)
	after := with(reviewManaged, "no_export", reviewPolicy{"no key export", client.EffectDeny,
		"activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'", ""})
	rows, diags := w.checkChange(reviewManaged, after, "custody_policy.no_export", 2)
	// Alone the requester waited for consensus; with two approvers export
	// was allowed. Both are denied now.
	for _, r := range rows {
		if r.ActivityType != "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY" || r.After != client.OutcomeDenyExplicit {
			t.Errorf("a deny on key export should only deny export; got %q", r.line())
		}
	}
	if rows[0].line() != "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: OUTCOME_ALLOW -> OUTCOME_DENY_EXPLICIT" &&
		rows[0].line() != "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: OUTCOME_REQUIRES_CONSENSUS -> OUTCOME_DENY_EXPLICIT" {
		t.Errorf("the first row should be export, now denied: %q", rows[0].line())
	}
	if e := reviewDiags(diags, "Control broken"); len(e) != 0 {
		t.Errorf("a narrowing change breaks no control: %+v", e)
	}

	// Deleting the deny again (a destroy plan of one resource) is reported
	// under its name, as the widening it is. Terraform gives the warning
	// of a resource no longer in the configuration no address: the summary
	// names the policy.
	w.cli.mustRun(0, "apply", "-auto-approve")
	rows, _ = w.checkChange(after, reviewManaged, "", 2)
	for _, r := range rows {
		if r.ActivityType != "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY" || r.Before != client.OutcomeDenyExplicit ||
			(r.After != client.OutcomeAllow && r.After != client.OutcomeRequiresConsensus) {
			t.Errorf("deleting the deny should only give export back; got %q", r.line())
		}
	}
}

// Weakening a consensus from three approvers to two: the rows are
// requests with two approvers, now allowed.
func TestAccessReviewCLI_weakerConsensus(t *testing.T) {
	w := newReviewWorld(t)
	weaker := reviewManaged["wallets"]
	weaker.consensus = "approvers.count() >= 2"
	rows, _ := w.checkChange(reviewManaged, with(reviewManaged, "wallets", weaker), "custody_policy.wallets", 2)
	for _, r := range rows {
		if r.Before != client.OutcomeRequiresConsensus || r.After != client.OutcomeAllow {
			t.Errorf("a weaker consensus should only allow what waited; got %q", r.line())
		}
		if n := strings.Count(r.Example, "id"); n < 2 {
			t.Errorf("the example of %q should have two approvers:\n%s", r.line(), r.Example)
		}
	}
}

// A rename, a notes change and an update that decides the same (the
// condition's terms swapped) report nothing, and break no control.
func TestAccessReviewCLI_noNoise(t *testing.T) {
	w := newReviewWorld(t)
	after := maps.Clone(reviewManaged)
	renamed := after["transfer_limit"]
	renamed.name = "transfers up to 10 ETH alone"
	after["transfer_limit"] = renamed
	swapped := after["wallets"]
	swapped.condition = "activity.action == 'CREATE' && activity.resource == 'WALLET'"
	after["wallets"] = swapped
	code, diags := w.planJSON(reviewResources(after) + `
resource "custody_policy" "noted" {
  name      = "noted"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'"
}
`)
	if code != 2 {
		t.Fatalf("plan exited %d, want 2: %+v", code, diags)
	}
	// The new deny duplicates the unmanaged one: a finding, but no change.
	for _, d := range diags {
		if strings.HasPrefix(d.Summary, "Access change") || strings.HasPrefix(d.Summary, "Control broken") {
			t.Errorf("nothing here changes a decision: %+v", d)
		}
	}
	w.cli.mustRun(0, "apply", "-auto-approve")
	code, diags = w.planJSON(reviewResources(after) + `
resource "custody_policy" "noted" {
  name      = "noted"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'"
  notes     = "a note"
}
`)
	if code != 2 || len(diags) != 0 {
		t.Errorf("a notes change should plan with no diagnostic (exit %d): %+v", code, diags)
	}
	if rows := w.functionRows(reviewManaged, after); len(rows) != 0 {
		t.Errorf("policy_changes should find no row for a rename and a reworded condition: %+v", rows)
	}
}

// A duplicate, a policy that never applies and an allow shadowed by a
// deny each give their Policy finding, on their resource.
func TestAccessReviewCLI_findings(t *testing.T) {
	w := newReviewWorld(t)
	after := maps.Clone(reviewManaged)
	after["duplicate"] = reviewPolicy{"signing needs two, again", client.EffectAllow, reviewUnmanaged[0].condition, reviewUnmanaged[0].consensus}
	after["never"] = reviewPolicy{"never applies", client.EffectAllow,
		"activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'", ""}
	after["shadowed"] = reviewPolicy{"wallet export by two", client.EffectAllow, "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'",
		"approvers.count() >= 2"}
	code, diags := w.planJSON(reviewResources(after))
	if code != 2 {
		t.Fatalf("plan exited %d, want 2: %+v", code, diags)
	}
	found := map[string]planDiagnostic{}
	for _, d := range reviewDiags(diags, "Policy finding: ") {
		found[d.Address] = d
		t.Logf("%s (%s):\n%s", d.Summary, d.Address, d.Detail)
	}
	for address, want := range map[string][]string{
		"custody_policy.duplicate": {"Policy finding: signing needs two, again", "duplicate", "signing needs two approvers"},
		"custody_policy.never":     {"Policy finding: never applies", "never applies"},
		"custody_policy.shadowed":  {"Policy finding: wallet export by two", "shadowed", "wallet export denied"},
	} {
		d, ok := found[address]
		if !ok {
			t.Errorf("no Policy finding on %s: %+v", address, diags)
			continue
		}
		if d.Summary != want[0] || d.Severity != "warning" {
			t.Errorf("%s: got %q (%s), want the warning %q", address, d.Summary, d.Severity, want[0])
		}
		for _, part := range want[1:] {
			if !strings.Contains(d.Detail, part) {
				t.Errorf("%s: the finding should name %q:\n%s", address, part, d.Detail)
			}
		}
	}
	if len(found) != 3 {
		t.Errorf("want exactly three findings, got %d: %+v", len(found), found)
	}
}

// A control the organization broke before the plan is one warning, and
// the plan goes on: here transactions up to the limit are allowed alone
// already, and the plan only adds a deny of transfers to one address. A
// control is judged on the types a change can touch: a plan that changes
// only key export says nothing of transactions.
func TestAccessReviewCLI_brokenBefore(t *testing.T) {
	w := newReviewWorld(t)
	after := with(reviewManaged, "no_dead", reviewPolicy{"no transfers to dead", client.EffectDeny,
		"activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '0x000000000000000000000000000000000000dead'", ""})
	controls := withControl("transactions never alone", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "consensus")
	w.cli.write(controls + reviewResources(after))
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 2 || strings.Contains(out, "Error:") || strings.Count(out, "Warning: Control broken before this plan: transactions never alone") != 1 {
		t.Fatalf("the plan should go on with one warning for the control broken before it (exit %d):\n%s", code, out)
	}
	if !strings.Contains(flat(out), "ACTIVITY_TYPE_SIGN_TRANSACTION_V2: OUTCOME_ALLOW -> OUTCOME_ALLOW one non-root user alone") {
		t.Errorf("the warning should show a transaction allowed alone before and after:\n%s", out)
	}
}

// A change whose condition is known only at apply gets no report at plan
// (a warning says the controls wait for the apply), and the apply, which
// plans it again with its values, refuses it before it is submitted.
func TestAccessReviewCLI_unknownAtPlan(t *testing.T) {
	w := newReviewWorld(t)
	body := reviewResources(reviewManaged) + `
resource "custody_private_key_tag" "hot" {
  name            = "hot"
  private_key_ids = []
}

resource "custody_policy" "hot_signs" {
  name      = "hot keys sign raw payloads alone"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && private_key.tags.contains('${custody_private_key_tag.hot.id}')"
}
`
	code, diags := w.planJSON(body)
	waits := reviewDiags(diags, "Controls checked at apply: ")
	if code != 2 || len(waits) != 1 || waits[0].Address != "custody_policy.hot_signs" || len(reviewDiags(diags, "Access change")) != 0 {
		t.Fatalf("the plan should only say that the controls wait for the apply (exit %d): %+v", code, diags)
	}
	out, code := w.cli.run(nil, "apply", "-auto-approve")
	if code != 1 || !strings.Contains(out, "Error: Control broken: raw signing never alone") || !strings.Contains(out, "custody_policy.hot_signs") {
		t.Fatalf("the apply should refuse the change for the control (exit %d):\n%s", code, out)
	}
	policies, err := w.e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies.Policies {
		if p.PolicyName == "hot keys sign raw payloads alone" {
			t.Errorf("the refused policy was created: %+v", p)
		}
	}
}

// A plan that cannot read the organization's policies (here a service
// that answers 503 to everything, with skip_credentials_validation) goes
// on, with an "Access review not made" warning on each policy, and reads
// the list once for the command, not once per policy: the transport has
// already retried.
func TestAccessReviewCLI_unreadable(t *testing.T) {
	var mu sync.Mutex
	lists := 0
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "list_policies") {
			mu.Lock()
			lists++
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code": 14, "message": "unavailable"}`))
	}))
	t.Cleanup(down.Close)
	c := newTFCLI(t, newAccEmulator(t))
	c.env = append(c.env, "CUSTODY_BASE_URL="+down.URL, "CUSTODY_SKIP_CREDENTIALS_VALIDATION=true", "CUSTODY_MAX_RETRIES=1")
	c.write(`
resource "custody_policy" "p" {
  count     = 4
  name      = "wallets ${count.index}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
}
`)
	out, code := c.run(nil, "plan", "-detailed-exitcode", "-json")
	var warned []string
	for line := range strings.SplitSeq(out, "\n") {
		var msg struct {
			Type       string         `json:"type"`
			Diagnostic planDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" && msg.Diagnostic.Summary == "Access review not made" {
			warned = append(warned, msg.Diagnostic.Address)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if code != 2 || len(warned) != 4 || lists != 2 {
		t.Fatalf("want the plan to go on (exit %d, want 2) with 4 warnings (got %v) after one read with its one retry (got %d requests):\n%s",
			code, warned, lists, out)
	}
}

// Joint effects: two denies that both cover key export, deleted together.
// Each delete alone changes no decision (the other deny still denies), so
// neither gets an Access change warning; the controls, which count every
// change in its most permissive version, and policy_changes over the
// whole sets both see export allowed again.
func TestAccessReviewCLI_jointEffects(t *testing.T) {
	w := newReviewWorld(t)
	denies := maps.Clone(reviewManaged)
	denies["deny_a"] = reviewPolicy{"no key export (a)", client.EffectDeny, "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'", ""}
	denies["deny_b"] = reviewPolicy{"no key export (b)", client.EffectDeny, "activity.resource == 'PRIVATE_KEY' && activity.action == 'EXPORT'", ""}
	controls := withControl("key export denied", "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", "denied")
	w.cli.write(controls + reviewResources(denies))
	w.cli.mustRun(0, "apply", "-auto-approve")

	w.cli.write(controls + reviewResources(reviewManaged))
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode", "-json")
	var changes, broken []planDiagnostic
	for line := range strings.SplitSeq(out, "\n") {
		var msg struct {
			Type       string         `json:"type"`
			Diagnostic planDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Type != "diagnostic" {
			continue
		}
		switch d := msg.Diagnostic; {
		case strings.HasPrefix(d.Summary, "Access change"):
			changes = append(changes, d)
		case d.Summary == "Control broken: key export denied" && d.Severity == "error":
			broken = append(broken, d)
		}
	}
	if code != 1 || len(changes) != 0 || len(broken) != 1 {
		t.Fatalf("want no Access change and one Control broken error (exit %d, want 1): changes %+v, broken %+v", code, changes, broken)
	}
	t.Logf("%s:\n%s", broken[0].Summary, broken[0].Detail)
	rows := w.functionRows(denies, reviewManaged)
	allowed := false
	for _, r := range rows {
		if r.ActivityType == "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY" && r.Before == client.OutcomeDenyExplicit && r.After == client.OutcomeAllow {
			allowed = true
		}
	}
	if !allowed {
		t.Errorf("policy_changes over the whole sets should show export allowed again: %+v", rows)
	}
	w.replay(denies, reviewManaged, rows)
}
