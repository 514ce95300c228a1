package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// faultyService answers about 25% of requests with 429 (Retry-After: 1),
// 503 or 500 before serving them, and commits 10% of submits and then
// either drops the connection or answers 500, so that the client cannot
// know they succeeded: only resending the identical body, which the service
// deduplicates, avoids a duplicate. The first submit meets each
// after-commit fault for certain. The seed keeps the fault draws
// repeatable; which request meets which draw still depends on Terraform's
// parallelism.
var faultyService = emulator.Faults{
	RateLimited: emulator.FaultRate{Rate: 0.10}, RetryAfterSeconds: 1,
	Unavailable:         emulator.FaultRate{Rate: 0.112},  // of the 90% not rate limited: 10% more in all
	Internal:            emulator.FaultRate{Rate: 0.0625}, // of the 80% left: 5% more
	DropAfterCommit:     emulator.FaultRate{Rate: 0.05, First: 1},
	InternalAfterCommit: emulator.FaultRate{Rate: 0.053, First: 1}, // of the 95% not dropped: 5% more
	Seed:                20260412,
}

// faultKinds are the faults that faultyService must have injected for a
// run to prove anything.
var faultKinds = []string{"429", "503", "500", "drop-after-commit", "500-after-commit"}

// faultsProviderBlock allows more retries than the default 5: at a 25%
// fault rate, six failures in a row are rare but not rare enough for ~600
// requests in every run.
func (e *accEmulator) faultsProviderBlock(extra ...string) string {
	return e.providerBlock(append([]string{"max_retries = 10"}, extra...)...)
}

func faultsPolicies(count int, notes string) string {
	return signRawDenials(count, "policy ", notes)
}

// faultsExactly checks that the service holds exactly the policies in state,
// want of them, all with the given notes: nothing lost, nothing duplicated.
func faultsExactly(e *accEmulator, want int, notes string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		var inState []string
		for _, rs := range s.RootModule().Resources {
			if rs.Type == "custody_policy" {
				inState = append(inState, rs.Primary.ID)
			}
		}
		list, err := e.client.ListPolicies(context.Background(), client.ListPoliciesRequest{})
		if err != nil {
			return err
		}
		var held []string
		for _, p := range list.Policies {
			held = append(held, p.PolicyID)
			if p.Notes != notes {
				return fmt.Errorf("policy %s has notes %q, want %q", p.PolicyID, p.Notes, notes)
			}
		}
		slices.Sort(inState)
		slices.Sort(held)
		if len(held) != want || !slices.Equal(held, inState) {
			return fmt.Errorf("the service holds %d policies and state %d, want the same %d", len(held), len(inState), want)
		}
		return nil
	}
}

// faultsCase creates n policies, updates them all, then deletes all but
// kept, under the emulator's faults. Every step must converge to exactly
// what is configured, nothing lost and nothing duplicated, and the plan
// after each apply, read under the same faults, must be empty. Destroy
// must leave nothing, and each of kinds must have fired, or the run proved
// nothing.
func faultsCase(t *testing.T, e *accEmulator, n, kept int, kinds []string) resource.TestCase {
	step := func(count int, notes string) resource.TestStep {
		return resource.TestStep{
			Config:           e.faultsProviderBlock() + faultsPolicies(count, notes),
			Check:            faultsExactly(e, count, notes),
			ConfigPlanChecks: faultsEmptyPlanAfter,
		}
	}
	return resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			if held := emulatorPolicyIDs(t, e); len(held) != 0 {
				return fmt.Errorf("%d policies left after destroy: %v", len(held), held)
			}
			got := e.srv.InjectedFaults()
			for _, kind := range kinds {
				if got[kind] == 0 {
					return fmt.Errorf("no %s fault was injected (%v): the test exercised nothing", kind, got)
				}
			}
			t.Logf("faults injected: %v", got)
			return nil
		},
		Steps: []resource.TestStep{step(n, "v1"), step(n, "v2"), step(kept, "v2")},
	}
}

// TestAccFaults_createUpdateDelete applies, updates and deletes 50 policies
// while the service rate limits, fails with 503 and 500, and drops
// connections or answers 500 after committing.
func TestAccFaults_createUpdateDelete(t *testing.T) {
	e := newAccEmulator(t, func(o *emulator.Options) { o.Faults = faultyService })
	accTest(t, faultsCase(t, e, 50, 20, faultKinds))
}

// faultsEmptyPlanAfter says outright what the testing framework also
// checks: after the apply, a refresh and plan under faults finds nothing to
// do (a lost or duplicated object would show as a change).
var faultsEmptyPlanAfter = resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}

// TestAccFaults_internalErrors applies, updates and deletes policies while
// 30% of the submits are committed and then answered 500 and 10% of all
// requests fail with a 500 that commits nothing: the provider must retry
// both (a 500 is not final) and the service's fingerprint deduplication
// must turn every retry of a committed submit into the same activity.
func TestAccFaults_internalErrors(t *testing.T) {
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.Faults = emulator.Faults{
			Internal:            emulator.FaultRate{Rate: 0.1, First: 1},
			InternalAfterCommit: emulator.FaultRate{Rate: 0.3, First: 1},
			Seed:                7,
		}
	})
	accTest(t, faultsCase(t, e, 10, 4, []string{"500", "500-after-commit"}))
}

// TestAccFaults_serviceDown applies against a service that stays down: the
// apply fails within the resources' timeout with the service's answer,
// and a later apply against the recovered service converges with nothing
// duplicated.
func TestAccFaults_serviceDown(t *testing.T) {
	e := newAccEmulator(t)
	const timeout = 15 * time.Second
	// Without the credentials check, which would fail the plan (as
	// TestAccProviderCheck_unreachable shows): this is about the creates.
	config := e.faultsProviderBlock("skip_credentials_validation = true") + fmt.Sprintf(`
resource "custody_policy" "p" {
  count  = 3
  name   = "policy ${count.index}"
  effect = "EFFECT_ALLOW"
  timeouts = {
    create = %q
  }
}
`, timeout)
	var start time.Time
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					e.srv.SetFaults(emulator.Faults{Down: true})
					start = time.Now()
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Error creating policy.*503.*the\s+service\s+is\s+down.*would\s+pass\s+the\s+deadline`),
			},
			{
				PreConfig: func() {
					// Plan and apply around the failed creates take a few
					// seconds more than the timeout itself.
					if took := time.Since(start); took > timeout+20*time.Second {
						t.Errorf("the failing apply took %v, want it to end soon after the %v timeout", took, timeout)
					}
					e.srv.SetFaults(emulator.Faults{})
				},
				Config: config,
				Check:  faultsExactly(e, 3, ""),
			},
		},
	})
}
