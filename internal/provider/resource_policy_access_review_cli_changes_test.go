package provider

import (
	"maps"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Access changes: each change's rows, checked against policy_changes and
// replayed through policy_decision, and the controls it breaks.

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
	if len(reviewDiags(diags, "Control broken outside")) != 0 {
		t.Errorf("no control was broken outside the plan: %+v", diags)
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
	// One row, as the guide shows it, whose witness is the region's closed
	// end (20 ETH), not 10 ETH and a wei.
	if len(rows) != 1 || !strings.Contains(rows[0].Example, `"20000000000000000000"`) {
		t.Errorf("the raise should be one row with a 20 ETH witness; got %d rows: %+v", len(rows), rows)
	}
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
	diags := planDiagnostics(out)
	changes := reviewDiags(diags, "Access change")
	var broken []planDiagnostic
	for _, d := range diags {
		if d.Summary == "Control broken: key export denied" && d.Severity == "error" {
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
