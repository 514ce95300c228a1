package provider

import (
	"maps"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// What the access review says besides access changes: a Policy finding
// on a policy that is redundant or never applies, and a control broken
// before the plan.

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

// A control the organization already breaks, by a policy the
// configuration manages, is no longer a silent pass: every plan fails on
// it, naming the policy, until the policy changes or the control opts
// into a warning.
func TestAccessReviewCLI_brokenByTheOrganization(t *testing.T) {
	w := newReviewWorld(t)
	after := with(reviewManaged, "no_dead", reviewPolicy{"no transfers to dead", client.EffectDeny,
		"activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '0x000000000000000000000000000000000000dead'", ""})
	controls := withControl("transactions never alone", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "consensus")
	w.cli.write(controls + reviewResources(after))
	out, code := w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 1 || strings.Count(out, "Error: Control broken: transactions never alone") != 1 {
		t.Fatalf("the plan should fail once on the control the organization breaks (exit %d):\n%s", code, out)
	}
	if !strings.Contains(flat(out), "ACTIVITY_TYPE_SIGN_TRANSACTION_V2: OUTCOME_ALLOW one non-root user alone") ||
		!strings.Contains(flat(out), `- "transfers up to the limit alone" (`) {
		t.Errorf("the error should show a transaction allowed alone, and the policy that allows it:\n%s", out)
	}
	w.cli.write(strings.Replace(controls, `at_most        = "consensus"`, `at_most        = "consensus"
      on_outside_breach = "warning"`, 1) + reviewResources(after))
	out, code = w.cli.run(nil, "plan", "-detailed-exitcode")
	if code != 2 || strings.Contains(out, "Error:") || strings.Count(out, "Warning: Control broken: transactions never alone") != 1 {
		t.Fatalf("on_outside_breach = \"warning\" should let the plan go on with one warning (exit %d):\n%s", code, out)
	}
}
