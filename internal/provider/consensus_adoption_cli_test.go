package provider

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// Under a root quorum of 2 every create completes after approval, and the
// provider adopts a completed create (approved while an earlier apply was
// away) instead of submitting it again. These tests drive the real CLI
// through what made that adoption report objects that were not there: a
// re-create after destroy, after an out-of-band delete and with -replace,
// and an update toggled back and forth. After each apply the service holds
// exactly the objects the state names, and the next plan is empty.

const consensusPolicies = `
variable "name" {
  type    = string
  default = "approved"
}

# Allows only signing, so that every change here needs the root quorum.
resource "custody_policy" "test" {
  count     = 3
  name      = "${var.name} ${count.index}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
}
`

// consensusCLI is a working directory whose organization needs two root
// approvals, with a second root approving every waiting activity, as the
// docs' `custody-emulator approve -all` loop does.
func consensusCLI(t *testing.T) (*tfCLI, *accEmulator) {
	t.Helper()
	e, approver := policyConsensusEmulator(t)
	policyStartVoter(t, approver, true)
	c := newTFCLI(t, e)
	c.write(consensusPolicies)
	return c, e
}

// mustHoldStateExactly fails unless the service holds exactly the
// policies the state names, all named prefix + " <index>", and the next
// plan (with planArgs) is empty.
func (c *tfCLI) mustHoldStateExactly(e *accEmulator, prefix string, planArgs ...string) {
	c.t.Helper()
	got, err := e.client.ListPolicies(context.Background(), client.ListPoliciesRequest{})
	if err != nil {
		c.t.Fatal(err)
	}
	var held []string
	for _, p := range got.Policies {
		held = append(held, p.PolicyID)
		if !strings.HasPrefix(p.PolicyName, prefix+" ") {
			c.t.Errorf("policy %s is named %q, want %q and an index", p.PolicyID, p.PolicyName, prefix)
		}
	}
	state := c.policyStateIDs()
	slices.Sort(held)
	slices.Sort(state)
	if !slices.Equal(held, state) || len(state) != 3 {
		c.t.Fatalf("the service holds %v, the state names %v: want the same 3", held, state)
	}
	c.mustRun(0, append([]string{"plan", "-detailed-exitcode"}, planArgs...)...)
}

// TestConsensusRecreateMakesRealObjects: destroyed, deleted outside
// Terraform or replaced, a policy is created again: a new object, never
// the earlier create's id.
func TestConsensusRecreateMakesRealObjects(t *testing.T) {
	c, e := consensusCLI(t)
	c.mustRun(0, "apply", "-auto-approve")
	c.mustHoldStateExactly(e, "approved")
	first := c.policyStateIDs()

	c.mustRun(0, "destroy", "-auto-approve")
	if ids := c.policyStateIDs(); len(ids) != 0 {
		t.Fatalf("after destroy the state names %v", ids)
	}
	c.mustRun(0, "apply", "-auto-approve")
	c.mustHoldStateExactly(e, "approved")
	if again := c.policyStateIDs(); slices.ContainsFunc(again, func(id string) bool { return slices.Contains(first, id) }) {
		t.Fatalf("re-created after destroy with ids %v, some of them destroyed earlier (%v)", again, first)
	}

	gone := c.policyStateIDs()[0]
	if _, err := e.client.WithApprovalWait(time.Minute).DeletePolicy(context.Background(), client.DeletePolicyParams{PolicyID: gone}); err != nil {
		t.Fatalf("deleting %s outside Terraform: %v", gone, err)
	}
	c.mustRun(0, "apply", "-auto-approve")
	c.mustHoldStateExactly(e, "approved")
	if slices.Contains(c.policyStateIDs(), gone) {
		t.Fatalf("after the out-of-band delete of %s the state still names it", gone)
	}

	before := c.policyStateIDs()
	out := c.mustRun(0, "apply", "-auto-approve", "-replace=custody_policy.test[1]")
	if !strings.Contains(out, "1 added, 0 changed, 1 destroyed") {
		t.Fatalf("-replace did not replace one policy:\n%s", out)
	}
	c.mustHoldStateExactly(e, "approved")
	if after := c.policyStateIDs(); slices.Equal(after, before) {
		t.Fatalf("-replace kept the ids %v", after)
	}
}

// TestConsensusUpdateToggleConverges: renaming A→B→A→B within a day ends
// at B at the service, not at the A that adopting the first A→B's
// completed update would leave.
func TestConsensusUpdateToggleConverges(t *testing.T) {
	c, e := consensusCLI(t)
	for _, name := range []string{"A", "B", "A", "B"} {
		c.mustRun(0, "apply", "-auto-approve", "-var", "name="+name)
		c.mustHoldStateExactly(e, name, "-var", "name="+name)
	}
}

// TestConsensusWaitOutlastingItsTimeoutIsAnApprovalTimeout: every request
// is slow (300 ms), so the adoption listing and the submit eat into the
// create's 3 s before the wait for approvals starts. The wait must still
// end before the timeout, as an approval timeout that names the activity,
// not as a poll cut short, which would save the resource as a lost answer.
// While it waits, TF_LOG_PROVIDER=INFO shows what to approve.
func TestConsensusWaitOutlastingItsTimeoutIsAnApprovalTimeout(t *testing.T) {
	e, _ := policyConsensusEmulator(t)
	c := newTFCLI(t, e)
	c.write(`
resource "custody_policy" "slow" {
  name      = "waits"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
  timeouts  = { create = "3s" }
}
`)
	e.srv.SetFaults(emulator.Faults{Latency: emulator.FaultRate{Rate: 1}, Delay: 300 * time.Millisecond})
	out, code := c.run([]string{"TF_LOG_PROVIDER=INFO"}, "apply", "-auto-approve")
	e.srv.SetFaults(emulator.Faults{})
	if code != 1 || !regexp.MustCompile(`activity\s+\S+\s+still\s+waits\s+for\s+approval`).MatchString(out) ||
		lostAnswerError.MatchString(out) {
		t.Fatalf("apply exited %d; want the approval timeout, not a lost answer:\n%s", code, out)
	}
	pending, err := policyConsensusActivities(e.client, client.OpCreatePolicies.Type, client.StatusConsensusNeeded)
	if err != nil || len(pending) != 1 {
		t.Fatalf("waiting creates: %v, %d; want 1", err, len(pending))
	}
	logged := regexp.MustCompile(`\[INFO\].*activity waits for approvals:.*`)
	line := logged.FindString(out)
	if !strings.Contains(line, "fingerprint="+pending[0].Fingerprint) || !strings.Contains(line, "activity_id="+pending[0].ID) ||
		!strings.Contains(line, "activity_type="+client.OpCreatePolicies.Type) {
		t.Fatalf("TF_LOG_PROVIDER=INFO does not show the waiting activity %s and its fingerprint:\n%s", pending[0].ID, out)
	}
	t.Log(line)
	if ids := c.policyStateIDs(); len(ids) != 0 {
		t.Fatalf("the state holds %v; an approval timeout saves nothing (a later apply adopts the activity)", ids)
	}
}
