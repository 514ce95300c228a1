package provider

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// TestAccInterruptedApplyConverges sends SIGINT to a terraform apply while
// policies are being created, as Ctrl-C in a pipeline does. Terraform then
// cancels the provider's requests; a create whose submit had already
// reached the service must still end up in state, or the next apply
// creates that policy a second time. Every request is slowed down so that
// the interrupt lands while submits are in flight.
func TestAccInterruptedApplyConverges(t *testing.T) {
	const n = 30
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.Faults = emulator.Faults{Latency: emulator.FaultRate{Rate: 1}, Delay: 150 * time.Millisecond}
	})
	cli := newTFCLI(t, e)
	cli.write(countedPolicies{label: "p", count: n, name: "interrupted ", effect: client.EffectAllow,
		condition: "activity.resource == 'PRIVATE_KEY'"}.hcl())
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var out bytes.Buffer
	apply := cli.start(ctx, &out, "apply", "-auto-approve", "-parallelism=6")
	// Interrupt once a batch of creates has been submitted, while the next
	// is on the wire (-parallelism=6 makes batches of six).
	for e.srv.RequestCounts()["submit/create_policies"] < 2 {
		if ctx.Err() != nil {
			t.Fatalf("the apply never got going:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := apply.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := apply.Wait(); err == nil {
		t.Fatalf("the interrupted apply exited 0; it was not interrupted:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Interrupt received") {
		t.Fatalf("terraform did not see the interrupt:\n%s", out.String())
	}

	// Every policy the service created is in state, and nothing else.
	created := emulatorPolicyIDs(t, e)
	recorded := cli.policyStateIDs()
	slices.Sort(recorded)
	if len(created) == 0 || len(created) >= n {
		t.Fatalf("%d policies exist after the interrupt; want the apply stopped midway", len(created))
	}
	if !slices.Equal(created, recorded) {
		t.Fatalf("after the interrupt the service holds %d policies %v but state records %d %v: "+
			"a policy outside state is created again by the next apply", len(created), created, len(recorded), recorded)
	}

	e.srv.SetFaults(emulator.Faults{})
	cli.mustRun(0, "apply", "-auto-approve", "-parallelism=6")
	created = emulatorPolicyIDs(t, e)
	recorded = cli.policyStateIDs()
	slices.Sort(recorded)
	if len(created) != n || !slices.Equal(created, recorded) {
		t.Fatalf("after the second apply the service holds %d policies and state %d; want the same %d", len(created), len(recorded), n)
	}
	cli.mustRun(0, "plan", "-detailed-exitcode")
}

// emulatorPolicyIDs lists the service's policy ids, sorted.
func emulatorPolicyIDs(t *testing.T, e *accEmulator) []string {
	t.Helper()
	list, err := e.client.ListPolicies(context.Background(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(list.Policies))
	for _, p := range list.Policies {
		ids = append(ids, p.PolicyID)
	}
	slices.Sort(ids)
	return ids
}
