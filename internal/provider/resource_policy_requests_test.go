package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// policyRequestsTestConfig is n policies named by prefix.
func policyRequestsTestConfig(e *accEmulator, n int, prefix string) string {
	return e.config(countedPolicies{label: "many", count: n, name: prefix + "-", effect: client.EffectAllow,
		condition: "activity.resource == 'PRIVATE_KEY'"}.hcl())
}

// TestAccPolicy_roundTrips: each create is one submit (the root user needs
// no approval, so they are not batched; the root quorum that says so is
// read once per provider process, with its other first reads: see
// provider_prefetch.go), an update is one submit, and nothing is read
// back; a refresh of five policies is one list_policies; and
// the activity-sourced timestamps leave nothing for a refresh to report as
// changed outside Terraform.
func TestAccPolicy_roundTrips(t *testing.T) {
	e := newAccEmulator(t)
	before := map[string]int{}
	snapshot := func() { before = e.srv.RequestCounts() }
	quiet := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), expectNoDrift()}}
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{
				// Nothing is in state yet, so the plan and the apply refresh
				// nothing; each process makes the command's first reads once
				// (the apply plans each policy again, against the organization
				// as it is then): the policies and the root quorum; the
				// adoption listing is the apply's first create's.
				PreConfig: snapshot,
				Config:    policyRequestsTestConfig(e, 5, "first"),
				Check: accRequestsSince(e, &before, "creating 5 policies", map[string]int{
					"submit/create_policies": 5, "query/get_organization_configs": 2, "query/get_policy": 0, "query/list_policies": 2,
					"query/list_activities": 1}),
				ConfigPlanChecks: quiet,
			},
			{
				// The plan and the apply each refresh with one list, and each
				// update is one submit.
				PreConfig: snapshot,
				Config:    policyRequestsTestConfig(e, 5, "second"),
				Check: accRequestsSince(e, &before, "updating 5 policies", map[string]int{
					"submit/update_policy": 5, "query/get_policy": 0, "query/list_policies": -2, "query/list_activities": 1}),
				ConfigPlanChecks: quiet,
			},
			{
				// One `terraform refresh`, one provider configuration.
				PreConfig:    snapshot,
				RefreshState: true,
				Check: accRequestsSince(e, &before, "refreshing 5 policies", map[string]int{
					"query/list_policies": 1, "query/get_policy": 0}),
			},
		},
	})
}
