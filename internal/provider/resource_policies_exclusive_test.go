package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// onePolicyWhole is one custody_policy and the collection declared whole.
const onePolicyWhole = `
resource "custody_policy" "deny_exports" {
  name      = "Deny exports"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"
}

resource "custody_policies_exclusive" "all" {
  policy_ids = [custody_policy.deny_exports.id]
}
`

// makeOutsidePolicy makes a policy through the service's client, as the
// dashboard would.
func makeOutsidePolicy(t *testing.T, e *accEmulator, name string) string {
	t.Helper()
	got, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: name,
		Effect: client.EffectDeny, Condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'"}}})
	mustNot(t, err)
	return got.Result.PolicyIDs[0]
}

// TestAccPoliciesExclusive_importAndCreate: a newly created exclusive
// resource shows the removals it will make (it has no prior state to
// diff); imported by organization id and by identity, its state holds
// every id and plans no change.
func TestAccPoliciesExclusive_importAndCreate(t *testing.T) {
	e := newAccEmulator(t)
	var outside string
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			PreConfig: func() { outside = makeOutsidePolicy(t, e, "made from the dashboard") },
			Config:    e.config(onePolicyWhole),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("custody_policies_exclusive.all", plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue("custody_policies_exclusive.all", tfjsonpath.New("removals"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("made from the dashboard"),
						"effect": knownvalue.StringExact(client.EffectDeny)}),
				})),
			}},
			Check: func(*terraform.State) error {
				got, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
				if err != nil {
					return err
				}
				for _, p := range got.Policies {
					if p.PolicyID == outside {
						return fmt.Errorf("the outside policy %s is still there", outside)
					}
				}
				return nil
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("custody_policies_exclusive.all", tfjsonpath.New("id"), knownvalue.StringExact(accOrg)),
			},
		},
		{Config: e.config(onePolicyWhole), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		{Config: e.config(onePolicyWhole), ResourceName: "custody_policies_exclusive.all", ImportState: true, ImportStateId: accOrg,
			ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"}},
	}})
}

// TestAccPoliciesExclusive_identity: imported with an import block by
// identity, planning no change (Terraform 1.12+ and OpenTofu).
func TestAccPoliciesExclusive_identity(t *testing.T) {
	requireCLI(t, testclis.Identity)
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: e.config(onePolicyWhole), ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectIdentity("custody_policies_exclusive.all", map[string]knownvalue.Check{"organization_id": knownvalue.StringExact(accOrg)}),
		}},
		{Config: e.config(onePolicyWhole), ResourceName: "custody_policies_exclusive.all", ImportState: true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity},
	}})
}

// TestAccPoliciesExclusive_badInput: an id the organization does not have
// is an error naming it; two exclusive resources in one configuration are
// refused; a list the service does not answer plans no removal.
func TestAccPoliciesExclusive_badInput(t *testing.T) {
	e := newAccEmulator(t)
	twice := onePolicyWhole + `
resource "custody_policies_exclusive" "again" {
  policy_ids = [custody_policy.deny_exports.id]
}
`
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: e.config(`
resource "custody_policies_exclusive" "all" {
  policy_ids = ["5e0b7c6a-0000-4000-8000-000000000000"]
}
`), ExpectError: regexp.MustCompile(`(?s)No such policy.*"5e0b7c6a-0000-4000-8000-000000000000"`)},
		{Config: e.config(twice), ExpectError: regexp.MustCompile(`Two custody_policies_exclusive in one configuration`)},
		{Config: e.config(onePolicyWhole)},
		{
			// Under 429s and 503s the list is read again, whole: the plan
			// removes the one policy made outside, and nothing else.
			PreConfig: func() {
				makeOutsidePolicy(t, e, "made under faults")
				e.srv.SetFaults(emulator.Faults{Unavailable: emulator.FaultRate{Rate: 0.3}, RateLimited: emulator.FaultRate{Rate: 0.2},
					RetryAfterSeconds: 1, Seed: 7})
			},
			Config: e.providerBlock("max_retries = 10") + onePolicyWhole,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("custody_policies_exclusive.all", tfjsonpath.New("removals"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("made under faults")}),
				})),
			}},
		},
		{
			// A service that does not answer: the plan fails, and plans no
			// removal of the policy made meanwhile.
			PreConfig: func() {
				makeOutsidePolicy(t, e, "made while the service is down")
				e.srv.SetFaults(emulator.Faults{Down: true})
			},
			Config:      e.providerBlock("max_retries = 1") + onePolicyWhole,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`unavailable`),
		},
		{
			PreConfig: func() { e.srv.SetFaults(emulator.Faults{}) },
			Config:    e.config(onePolicyWhole),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("custody_policies_exclusive.all", tfjsonpath.New("removals"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("made while the service is down")}),
				})),
			}},
		},
	}})
}
