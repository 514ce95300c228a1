package provider

import (
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// Lost creates through the terraform CLI: the placeholder a lost answer
// leaves, and how the next plan and apply resolve it.

// lostFirstCreateCLI is a CLI working directory of resources, with a
// provider that tries each submit twice (max_retries = 1) against an
// emulator that drops the answers of both attempts of the first create.
// The caller applies, then clears the faults.
func lostFirstCreateCLI(t *testing.T, resources string) (*accEmulator, *tfCLI) {
	t.Helper()
	e := newAccEmulator(t)
	cli := newTFCLI(t, e)
	cli.write("\nprovider \"custody\" {\n  max_retries = 1\n}\n" + resources)
	dropFirstAnswers(e, 2)()
	return e, cli
}

// TestLostCreateCLI follows a lost create with the real CLI, step by step:
// the failed apply leaves a tainted placeholder and says what happened; a
// refresh resolves it to the object the service made, which `terraform
// untaint` keeps (the plan is then empty, nothing is created twice); and
// with -refresh=false, the replacement's delete resolves it itself.
func TestLostCreateCLI(t *testing.T) {
	e, cli := lostFirstCreateCLI(t, `
resource "custody_policy" "a" {
  name   = "kept"
  effect = "EFFECT_DENY"
}
`)
	out := cli.mustRun(1, "apply", "-auto-approve")
	e.srv.SetFaults(emulator.Faults{})
	for _, want := range []string{"may have reached the service", "next\nplan or apply finds out"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the failed apply does not say %q:\n%s", want, out)
		}
	}
	held := emulatorPolicyIDs(t, e)
	if ids := cli.policyStateIDs(); len(held) != 1 || len(ids) != 1 || !strings.HasPrefix(ids[0], client.LostCreateIDPrefix) {
		t.Fatalf("after the lost create: service %v, state %v; want one policy and a placeholder", held, ids)
	}
	if out := cli.mustRun(2, "plan", "-detailed-exitcode"); !strings.Contains(out, "is tainted, so must be replaced") {
		t.Fatalf("the plan does not replace the tainted policy:\n%s", out)
	}

	cli.mustRun(0, "apply", "-refresh-only", "-auto-approve")
	if ids := cli.policyStateIDs(); len(ids) != 1 || ids[0] != held[0] {
		t.Fatalf("after a refresh the state holds %v, want the service's %v", ids, held)
	}
	cli.mustRun(0, "untaint", "custody_policy.a")
	cli.mustRun(0, "plan", "-detailed-exitcode")
	if after := emulatorPolicyIDs(t, e); !slices.Equal(after, held) {
		t.Fatalf("the service holds %v, want only %v", after, held)
	}

	// A placeholder that no refresh resolved: the replacement's delete
	// finds the object and deletes it, and the create makes one new one.
	cli.mustRun(0, "destroy", "-auto-approve")
	dropFirstAnswers(e, 2)()
	cli.mustRun(1, "apply", "-auto-approve")
	e.srv.SetFaults(emulator.Faults{})
	lost := emulatorPolicyIDs(t, e)
	cli.mustRun(0, "apply", "-refresh=false", "-auto-approve")
	now := emulatorPolicyIDs(t, e)
	if ids := cli.policyStateIDs(); len(lost) != 1 || len(now) != 1 || now[0] == lost[0] || !slices.Equal(ids, now) {
		t.Fatalf("lost create made %v; after the apply the service holds %v and state %v: want one new policy in state", lost, now, ids)
	}
}

// TestLostCreateCLI_twinAnswered: of two instances with identical
// configurations, created one at a time, the first loses its answer and the
// second gets it. The lost one resolves to its own policy, never to its
// twin's, which the other instance manages.
func TestLostCreateCLI_twinAnswered(t *testing.T) {
	e, cli := lostFirstCreateCLI(t, `
resource "custody_policy" "twin" {
  count  = 2
  name   = "twin"
  effect = "EFFECT_ALLOW"
}
`)
	cli.mustRun(1, "apply", "-auto-approve", "-parallelism=1")
	e.srv.SetFaults(emulator.Faults{})
	ids := cli.policyStateIDs()
	held := emulatorPolicyIDs(t, e)
	answered := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return strings.HasPrefix(id, client.LostCreateIDPrefix) })
	if len(ids) != 2 || len(answered) != 1 || len(held) != 2 {
		t.Fatalf("state %v, service %v: want one placeholder and one policy in state, two policies made", ids, held)
	}
	cli.mustRun(0, "apply", "-refresh-only", "-auto-approve")
	resolved := cli.policyStateIDs()
	slices.Sort(resolved)
	if !slices.Equal(resolved, held) {
		t.Fatalf("after the refresh the state holds %v, want the service's two policies %v, each once", resolved, held)
	}
	cli.mustRun(0, "apply", "-auto-approve")
	final := cli.policyStateIDs()
	slices.Sort(final)
	if now := emulatorPolicyIDs(t, e); len(final) != 2 || final[0] == final[1] || !slices.Equal(final, now) {
		t.Fatalf("state %v, service %v: want the same two distinct policies", final, now)
	}
	cli.mustRun(0, "plan", "-detailed-exitcode")
}
