package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const policyTestAddr = "custody_policy.test"

// policyTestImportedTimes checks that an import takes the timestamps of
// the service's record.
func policyTestImportedTimes(e *accEmulator) resource.ImportStateCheckFunc {
	return func(states []*terraform.InstanceState) error {
		if len(states) != 1 {
			return fmt.Errorf("imported %d policies, want 1", len(states))
		}
		is := states[0]
		got, err := e.client.GetPolicy(context.Background(), client.GetPolicyRequest{PolicyID: is.ID})
		if err != nil {
			return err
		}
		for attr, ts := range map[string]client.Timestamp{"created_at": got.Policy.CreatedAt, "updated_at": got.Policy.UpdatedAt} {
			if want := timestampValue(ts).ValueString(); is.Attributes[attr] != want {
				return fmt.Errorf("imported %s = %q, want the service's %q", attr, is.Attributes[attr], want)
			}
		}
		return nil
	}
}

// policyAccTest runs steps on custody_policy resources and checks, at the
// end, that the service holds none of them.
func policyAccTest(t *testing.T, e *accEmulator, steps ...resource.TestStep) {
	t.Helper()
	accTest(t, resource.TestCase{CheckDestroy: policyTestCheckDestroy(e), Steps: steps})
}

// policyTestCheckDestroy asks the emulator that no policy is left.
func policyTestCheckDestroy(e *accEmulator) resource.TestCheckFunc {
	return checkService(func(ctx context.Context) error {
		got, err := e.client.ListPolicies(ctx, client.ListPoliciesRequest{})
		if err != nil {
			return err
		}
		if n := len(got.Policies); n != 0 {
			return fmt.Errorf("%d policies left after destroy, first %+v", n, got.Policies[0])
		}
		return nil
	})
}

// policyTestInService checks the stored policy of the resource in state
// against want (policy id and timestamps are not compared).
func policyTestInService(e *accEmulator, want client.Policy) resource.TestCheckFunc {
	return checkID(policyTestAddr, func(ctx context.Context, id string) error {
		got, err := e.client.GetPolicy(ctx, client.GetPolicyRequest{PolicyID: id})
		if err != nil {
			return err
		}
		p := got.Policy
		p.PolicyID, p.CreatedAt, p.UpdatedAt = "", client.Timestamp{}, client.Timestamp{}
		if p != want {
			return fmt.Errorf("service holds %+v, want %+v", p, want)
		}
		return nil
	})
}

// policyTestState checks every attribute of the policy in state.
func policyTestState(name, effect string, condition, consensus, time knownvalue.Check, notes string) []statecheck.StateCheck {
	return attrsAre(policyTestAddr, map[string]knownvalue.Check{
		"id":         knownvalue.StringRegexp(accNonBlank),
		"name":       knownvalue.StringExact(name),
		"effect":     knownvalue.StringExact(effect),
		"condition":  condition,
		"consensus":  consensus,
		"time":       time,
		"notes":      knownvalue.StringExact(notes),
		"created_at": knownvalue.StringRegexp(accRFC3339),
		"updated_at": knownvalue.StringRegexp(accRFC3339),
		"timeouts":   knownvalue.Null(),
	})
}

func TestAccPolicy_lifecycle(t *testing.T) {
	e := newAccEmulator(t)
	// Across the update: the same id and created_at, a new updated_at.
	sameID := statecheck.CompareValue(compare.ValuesSame())
	createdSame := statecheck.CompareValue(compare.ValuesSame())
	updatedMoves := statecheck.CompareValue(compare.ValuesDiffer())
	compared := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{
			sameID.AddStateValue(policyTestAddr, tfjsonpath.New("id")),
			createdSame.AddStateValue(policyTestAddr, tfjsonpath.New("created_at")),
			updatedMoves.AddStateValue(policyTestAddr, tfjsonpath.New("updated_at")),
		}
	}
	imp := accImport{addr: policyTestAddr, check: policyTestImportedTimes(e)}
	create := e.config(`
resource "custody_policy" "test" {
  name      = "allow key reads"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
  consensus = "approvers.count() >= 2"
  notes     = "managed by terraform"
}
`)
	// Changes every field in place, clears condition and consensus by
	// removing them, and adds time.
	update := e.config(`
resource "custody_policy" "test" {
  name   = "deny everything at night"
  effect = "EFFECT_DENY"
  time   = "!CronSpan('0 6 * * *', '18h', 'UTC')"
}
`)
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{
				Config: create,
				ConfigStateChecks: append(policyTestState("allow key reads", "EFFECT_ALLOW",
					knownvalue.StringExact("activity.resource == 'PRIVATE_KEY'"), knownvalue.StringExact("approvers.count() >= 2"),
					knownvalue.Null(), "managed by terraform"), compared()...),
				Check: policyTestInService(e, client.Policy{PolicyName: "allow key reads", Effect: client.EffectAllow,
					Condition: "activity.resource == 'PRIVATE_KEY'", Consensus: "approvers.count() >= 2", Notes: "managed by terraform"}),
				ConfigPlanChecks: thenEmptyPlan(),
			},
			{
				Config: update,
				ConfigPlanChecks: expectAction(policyTestAddr, plancheck.ResourceActionUpdate,
					plannedUnknown(policyTestAddr, "updated_at"),
					plannedIs(policyTestAddr, "notes", knownvalue.StringExact(""))),
				ConfigStateChecks: append(policyTestState("deny everything at night", "EFFECT_DENY",
					knownvalue.Null(), knownvalue.Null(), knownvalue.StringExact("!CronSpan('0 6 * * *', '18h', 'UTC')"), ""), compared()...),
				// The service really cleared condition, consensus and notes.
				Check: policyTestInService(e, client.Policy{PolicyName: "deny everything at night", Effect: client.EffectDeny,
					Time: "!CronSpan('0 6 * * *', '18h', 'UTC')"}),
			},
			// State holds the activities' times; an import has no activity
			// and takes the service's, which may differ by microseconds.
			imp.verify("created_at", "updated_at"),
			imp.block(
				plannedIs(policyTestAddr, "time", knownvalue.StringExact("!CronSpan('0 6 * * *', '18h', 'UTC')")),
				plannedIs(policyTestAddr, "condition", knownvalue.Null())),
		},
	})
}

func TestAccPolicy_drift(t *testing.T) {
	e := newAccEmulator(t)
	cfg := e.config(`
resource "custody_policy" "test" {
  name   = "drifting"
  effect = "EFFECT_ALLOW"
}
`)
	var firstID string
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.TestCheckResourceAttrWith(policyTestAddr, "id", func(v string) error { firstID = v; return nil })},
			{
				// Someone edits the policy outside Terraform: the plan puts
				// every changed field back, in place.
				PreConfig: outside(t, func(ctx context.Context) error {
					// Times compare to the second (timetypes.RFC3339), so
					// an edit in the apply's second would not move
					// updated_at: edit in the next one.
					time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
					name, cond, notes := "edited by hand", "activity.type == 'X'", "hand notes"
					_, err := e.client.UpdatePolicy(ctx, client.UpdatePolicyParams{PolicyID: firstID, PolicyName: &name,
						PolicyCondition: &cond, PolicyNotes: &notes})
					return err
				}),
				Config: cfg,
				// The refresh shows the edit and its time together.
				ConfigPlanChecks: planAction(policyTestAddr, plancheck.ResourceActionUpdate,
					expectDrift(policyTestAddr, "name", "condition", "notes", "updated_at")),
				Check: policyTestInService(e, client.Policy{PolicyName: "drifting", Effect: client.EffectAllow}),
			},
			{
				// Someone deletes it: refresh drops it and the plan creates it again.
				PreConfig: outside(t, func(ctx context.Context) error {
					_, err := e.client.DeletePolicy(ctx, client.DeletePolicyParams{PolicyID: firstID})
					return err
				}),
				Config:           cfg,
				ConfigPlanChecks: expectAction(policyTestAddr, plancheck.ResourceActionCreate),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrWith(policyTestAddr, "id", func(v string) error {
						if v == firstID {
							return fmt.Errorf("id %s is the deleted policy's", v)
						}
						return nil
					}),
					policyTestInService(e, client.Policy{PolicyName: "drifting", Effect: client.EffectAllow})),
			},
		},
	})
}

func TestAccPolicy_validation(t *testing.T) {
	e := newAccEmulator(t)
	policy := func(attrs string) string {
		return e.config(fmt.Sprintf("resource \"custody_policy\" \"test\" {\n%s\n}\n", attrs))
	}
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			planFails(policy(`name = ""
effect = "EFFECT_ALLOW"`), regexp.MustCompile(`(?s)name.*must not be empty or only white space`)),
			planFails(policy(fmt.Sprintf(`name = %q
effect = "EFFECT_ALLOW"`, strings.Repeat("n", 257))), regexp.MustCompile(`(?s)this\s+one\s+is\s+257\s+bytes`)),
			planFails(policy(`name = "   "
effect = "EFFECT_ALLOW"`), regexp.MustCompile(`(?s)must not be empty or only white space`)),
			planFails(policy(`name = "p"
effect = "ALLOW"`), regexp.MustCompile(`(?s)effect must be one of "EFFECT_ALLOW", "EFFECT_DENY", got "ALLOW"`)),
			planFails(policy(`name = "p"
effect = "EFFECT_DENY"
condition = ""`), regexp.MustCompile(`(?s)condition.*string length must be at least 1`)),
			planFails(policy(`name = "p"
effect = "EFFECT_DENY"
timeouts = { create = "soon" }`), regexp.MustCompile(`(?s)Invalid Attribute Value Time Duration.*"soon" must be a string`)),
		},
	})
}

// TestAccPolicy_syntaxError: an expression known only at apply cannot be
// checked by the plan, but Terraform validates the configuration again
// during apply once the value is known, and the provider then refuses it
// before anything is submitted. (The service's own refusal, a FAILED
// activity, is tested in the emulator and by the custody_activity data
// source.)
func TestAccPolicy_syntaxError(t *testing.T) {
	e := newAccEmulator(t)
	policyAccTest(t, e, resource.TestStep{
		Config: e.config(`
# terraform_data's output is unknown until apply.
resource "terraform_data" "expression" {
  input = "activity.type =="
}

resource "custody_policy" "test" {
  name      = "broken"
  effect    = "EFFECT_DENY"
  condition = terraform_data.expression.output
}
`),
		ExpectError: regexp.MustCompile(`(?s)Invalid policy condition expression.*line 1, column 17: expected a value`),
	})
}
