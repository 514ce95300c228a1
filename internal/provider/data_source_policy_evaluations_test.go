package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Two policies exist before the rename: one whose condition matches the
// rename (evaluated, OUTCOME_ALLOW) and one that does not apply to it (left
// out of the evaluation). depends_on makes the rename wait for both.
const policyEvaluationsTestResources = `
resource "custody_policy" "allow_rename" {
  name      = "allow renames"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME'"
  notes     = "evaluated for the rename"
}

resource "custody_policy" "signing_only" {
  name      = "deny signing"
  effect    = "EFFECT_DENY"
  condition = "activity.resource == 'PRIVATE_KEY'"
  notes     = "does not apply to a rename"
}

resource "custody_organization_name" "test" {
  name       = "Evaluated Org"
  depends_on = [custody_policy.allow_rename, custody_policy.signing_only]
}
`

// The evaluations are those of the rename custody_organization_name
// submitted in step 1, looked up by type in step 2 (the resource does not
// expose its activity id).
func TestAccPolicyEvaluationsDataSource_readsResourceActivity(t *testing.T) {
	e := newAccEmulator(t)
	var activityID string
	const ds, act = "data.custody_policy_evaluations.test", "data.custody_activity.test"
	first := tfjsonpath.New("evaluations").AtSliceIndex(0)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.config(policyEvaluationsTestResources)},
			{
				PreConfig: activityTestFind(t, e, "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", &activityID),
				Config: e.config(policyEvaluationsTestResources + `
variable "activity_id" {
  type = string
}

data "custody_policy_evaluations" "test" {
  activity_id = var.activity_id
}

data "custody_activity" "test" {
  activity_id = var.activity_id
}
`),
				ConfigVariables: config.Variables{"activity_id": activityTestLazyString{&activityID}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("activity_id"), activityTestEquals(&activityID)),
					// One record: the rename had one vote, the requester's.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("evaluations"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"id":      knownvalue.StringRegexp(activityTestNonEmpty),
							"vote_id": knownvalue.StringRegexp(activityTestNonEmpty),
							"policy_evaluations": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
								"policy_id": knownvalue.StringRegexp(activityTestNonEmpty),
								"outcome":   knownvalue.StringExact("OUTCOME_ALLOW"),
							})}),
							"created_at": knownvalue.StringRegexp(activityTestRFC3339),
						}),
					})),
					statecheck.CompareValuePairs(ds, first.AtMapKey("policy_evaluations").AtSliceIndex(0).AtMapKey("policy_id"),
						"custody_policy.allow_rename", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.CompareValuePairs(ds, first.AtMapKey("vote_id"),
						act, tfjsonpath.New("votes").AtSliceIndex(0).AtMapKey("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(act, tfjsonpath.New("result"),
						knownvalue.StringExact(`{"updateOrganizationNameResult":{"organizationId":"org-acc","organizationName":"Evaluated Org"}}`)),
				},
			},
		},
	})
}

func TestAccPolicyEvaluationsDataSource_errors(t *testing.T) {
	e := newAccEmulator(t)
	cfg := func(id string) string {
		return e.config(fmt.Sprintf("data \"custody_policy_evaluations\" \"test\" {\n  activity_id = %q\n}\n", id))
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(" "), PlanOnly: true, ExpectError: regexp.MustCompile(`must be an activity id`)},
			{Config: cfg("no-such-activity"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Error reading policy evaluations.*get_policy_evaluations for activity\s+no-such-activity.*HTTP\s+404`)},
		},
	})
}
