package provider

import (
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// batchApprovalsProvider gathers patiently (a 200 ms quiet gap): the test
// runs beside the other packages' tests, on a machine whose Terraform may
// dispatch a wave's 20 operations over more than the default 25 ms, and it
// counts approvals exactly. The default is what the other tests and the
// benchmark run.
const batchApprovalsProvider = `
provider "custody" {
  batching = {
    send_after = "4s"
  }
}
`

// batchApprovalsConfig is n policies named prefix-0 ... under a root
// quorum of two.
func batchApprovalsConfig(n int, prefix string) string {
	return signRawDenials(n, prefix+"-", "approved as one change")
}

// TestBatchApprovals: 20 policies under a root quorum of two, a second root
// user approving every waiting activity. Creating them and destroying them
// asks that user for one approval each at -parallelism=20, and two at the
// default parallelism (10); renaming them, which the service has no batch
// form for, asks 20. Each policy gets its own id back: the names the
// service holds match the state's.
func TestBatchApprovals(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		args                    []string
		creates, renames, drops int
	}{
		{"parallelism 20", []string{"-parallelism=20"}, 1, 20, 1},
		{"default parallelism", nil, 2, 20, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, approver := policyConsensusEmulator(t)
			voter := policyStartVoter(t, approver, true)
			cli := newTFCLI(t, e)
			apply := func(what string, args ...string) {
				t.Helper()
				cli.mustRun(0, append(append([]string{what, "-auto-approve"}, tc.args...), args...)...)
			}
			cli.write(batchApprovalsProvider + batchApprovalsConfig(20, "batched"))
			apply("apply")
			namesMatch(t, cli, e, "batched")
			cli.write(batchApprovalsProvider + batchApprovalsConfig(20, "renamed"))
			apply("apply")
			namesMatch(t, cli, e, "renamed")
			apply("destroy")
			if held := emulatorPolicyIDs(t, e); len(held) != 0 {
				t.Fatalf("destroy left %v", held)
			}
			got := []int{voter.votedOn(client.OpCreatePolicies.Type), voter.votedOn(client.OpUpdatePolicy.Type), voter.votedOn(client.OpDeletePolicies.Type)}
			t.Logf("approvals: create %d, rename %d, destroy %d", got[0], got[1], got[2])
			if want := []int{tc.creates, tc.renames, tc.drops}; !slices.Equal(got, want) {
				t.Fatalf("approvals for create, rename, destroy: %v, want %v", got, want)
			}
			if n := voter.votedOn(client.OpDeletePolicy.Type); n != 0 {
				t.Fatalf("%d single delete_policy activities were approved", n)
			}
		})
	}
}

// namesMatch checks that each policy in state is, at the service, the one
// its configuration names: ids taken by position never went to another
// instance.
func namesMatch(t *testing.T, cli *tfCLI, e *accEmulator, prefix string) {
	t.Helper()
	list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, p := range list.Policies {
		byID[p.PolicyID] = p.PolicyName
	}
	ids := cli.policyStateIDs()
	if len(ids) != 20 || len(byID) != 20 {
		t.Fatalf("state holds %d policies and the service %d, want 20", len(ids), len(byID))
	}
	for _, id := range ids {
		if !strings.HasPrefix(byID[id], prefix+"-") {
			t.Fatalf("policy %s in state is %q at the service", id, byID[id])
		}
	}
	// An instance holding another's id would read that one's name back,
	// and plan a rename.
	cli.mustRun(0, "plan", "-detailed-exitcode")
}
