package provider

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// lostAnswerError is the error of a create whose answer was lost.
var lostAnswerError = regexp.MustCompile(`(?s)Error creating policy.*may have reached\s+the\s+service.*saved\s+this\s+resource\s+as\s+tainted`)

// dropFirstAnswers is a PreConfig that makes the emulator drop the answers
// of the first n submits after they commit: both attempts of n/2 creates,
// at max_retries = 1.
func dropFirstAnswers(e *accEmulator, n int) func() {
	return func() { e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: n}}) }
}

// lostThenResolved is the test case of creates whose answers are lost:
// the first apply of config, after inject, fails with wantErr; the second,
// after afterFirst (which clears the faults and checks what the first
// made), resolves every create so that check holds, and the plan after it
// is empty. checkDestroy checks that destroy leaves nothing.
func lostThenResolved(config string, inject func(), wantErr *regexp.Regexp, afterFirst func(), check, checkDestroy resource.TestCheckFunc) resource.TestCase {
	return resource.TestCase{
		CheckDestroy: checkDestroy,
		Steps: []resource.TestStep{
			{PreConfig: inject, Config: config, ExpectError: wantErr},
			{PreConfig: afterFirst, Config: config, Check: check, ConfigPlanChecks: faultsEmptyPlanAfter},
		},
	}
}

// lostAnswersCase applies n policies with max_retries = 1 while faults
// lose the answers of some creates, then applies again once the service
// answers: every lost create must resolve to exactly one policy (the
// service holds exactly the n in state), the plan after is empty, and
// destroy leaves nothing. during, if set, runs beside the first apply and
// is stopped after it. providerLines are added to the provider block.
func lostAnswersCase(t *testing.T, e *accEmulator, n int, faults emulator.Faults, kinds []string, during func(stop <-chan struct{}),
	providerLines ...string) resource.TestCase {
	config := e.providerBlock(append([]string{"max_retries = 1"}, providerLines...)...) + faultsPolicies(n, "lost")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	inject := func() {
		e.srv.SetFaults(faults)
		if during != nil {
			wg.Add(1)
			go func() { defer wg.Done(); during(stop) }()
		}
	}
	afterFirst := func() {
		close(stop)
		wg.Wait()
		e.srv.SetFaults(emulator.Faults{})
		got := e.srv.InjectedFaults()
		for _, kind := range kinds {
			if got[kind] == 0 {
				t.Fatalf("no %s fault was injected (%v): the test exercised nothing", kind, got)
			}
		}
		t.Logf("first apply: faults %v; the service holds %d policies", got, len(emulatorPolicyIDs(t, e)))
	}
	return lostThenResolved(config, inject, lostAnswerError, afterFirst, faultsExactly(e, n, "lost"), policyTestCheckDestroy(e))
}

// TestAccLostAnswers_droppedAfterCommit: 40% of the creates' answers are
// dropped after the service committed them, and both attempts of the first
// submit; with one retry, about one submit (a batch of creates) in six
// loses both.
func TestAccLostAnswers_droppedAfterCommit(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, lostAnswersCase(t, e, 50, emulator.Faults{DropAfterCommit: emulator.FaultRate{Rate: 0.4, First: 2}, Seed: 7},
		[]string{"drop-after-commit"}, nil))
}

// TestAccLostAnswers_internalErrorAfterCommit: the same with a 500 answered
// after the commit.
func TestAccLostAnswers_internalErrorAfterCommit(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, lostAnswersCase(t, e, 50, emulator.Faults{InternalAfterCommit: emulator.FaultRate{Rate: 0.4, First: 2}, Seed: 11},
		[]string{"500-after-commit"}, nil))
}

// TestAccLostAnswers_serviceDownPastTheRetries: answers are dropped after
// commits, and then the service goes down for the rest of the apply: the
// retries of committed creates and the creates sent since meet a 503. The
// first did act, the second did not; the next apply must tell them apart.
func TestAccLostAnswers_serviceDownPastTheRetries(t *testing.T) {
	e := newAccEmulator(t)
	drops := emulator.Faults{DropAfterCommit: emulator.FaultRate{Rate: 0.3, First: 2}, Seed: 3}
	// Down once an answer has been dropped: counting submits as they
	// arrived raced the drops, which are made as the answers leave, and
	// the service could go down (replacing the drops) before any was.
	goDown := func(stop <-chan struct{}) {
		for e.srv.InjectedFaults()["drop-after-commit"] < 1 {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		e.srv.SetFaults(emulator.Faults{Down: true})
	}
	accTest(t, lostAnswersCase(t, e, 50, drops, []string{"drop-after-commit", "down"}, goDown))
}

// TestAccLostAnswers_staleRetry: the answers of committed creates are
// dropped, and the retry of each is refused as stale with a 400, as after
// an outage longer than the service's liveness window (the emulator's
// StaleRetry; make drill-lost-answers runs the same with a real 200 ms
// window). That refusal says nothing of the first attempt, which the
// service committed: nothing may be sent again, and a batch may not be
// split and resent item by item. Batched and one by one, the next apply
// holds exactly the 100 policies.
func TestAccLostAnswers_staleRetry(t *testing.T) {
	for name, batching := range map[string]string{"batched": "true", "unbatched": "false"} {
		t.Run(name, func(t *testing.T) {
			e := newAccEmulator(t)
			faults := emulator.Faults{DropAfterCommit: emulator.FaultRate{Rate: 0.3, First: 1}, StaleRetry: emulator.FaultRate{Rate: 1}, Seed: 7}
			accTest(t, lostAnswersCase(t, e, 100, faults, []string{"drop-after-commit", "stale-retry"}, nil,
				"batching = { enabled = "+batching+" }"))
		})
	}
}

// TestAccLostAnswers_identicalBodies: two instances with identical
// configurations, both of whose answers are lost on both attempts.
// Resolving each must find its own activity, not the other's, which has the
// same parameters: two policies, each managed once, and no orphan.
func TestAccLostAnswers_identicalBodies(t *testing.T) {
	e := newAccEmulator(t)
	config := e.providerBlock("max_retries = 1") + `
resource "custody_policy" "same" {
  count  = 2
  name   = "same"
  effect = "EFFECT_ALLOW"
  notes  = "twin"
}
`
	twinIDs := func(s *terraform.State) error {
		ids := stateIDsOf(s, "custody_policy")
		held := emulatorPolicyIDs(t, e)
		if len(ids) != 2 || ids[0] == ids[1] || !slices.Equal(ids, held) {
			return fmt.Errorf("state ids %v, service %v: want two distinct policies, each in state once", ids, held)
		}
		return nil
	}
	// Both attempts of both creates are dropped.
	accTest(t, lostThenResolved(config, dropFirstAnswers(e, 4), lostAnswerError, func() {
		e.srv.SetFaults(emulator.Faults{})
		if held := emulatorPolicyIDs(t, e); len(held) != 2 {
			t.Fatalf("after the first apply the service holds %v, want both creates done", held)
		}
	}, twinIDs, policyTestCheckDestroy(e)))
}
