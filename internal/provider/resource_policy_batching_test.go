package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// batchedPolicies is n policies, under a provider block with the extra
// settings given.
func batchedPolicies(e *accEmulator, n int, extra ...string) string {
	return e.providerBlock(extra...) + fmt.Sprintf(`
resource "custody_policy" "many" {
  count     = %d
  name      = "p-${count.index}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
}
`, n)
}

// TestAccPolicy_batchedWhereItSavesApprovals: the root user under a root
// quorum of one needs no approval, so by default each create and delete
// goes alone (a batch would save nothing and make each wave wait), and the
// provider reads the root quorum once per process to know it; batching.enabled = true
// batches them all the same. TestBatchApprovals is the other side: under a
// quorum of two they are batched by default.
func TestAccPolicy_batchedWhereItSavesApprovals(t *testing.T) {
	e := newAccEmulator(t)
	always := `batching = { enabled = true, send_after = "4s" }` // see patientBatching
	before := map[string]int{}
	snapshot := func() { before = e.srv.RequestCounts() }
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{
				PreConfig: snapshot,
				Config:    batchedPolicies(e, 6),
				Check: accRequestsSince(e, &before, "creating 6 policies by default", map[string]int{
					"submit/create_policies": 6, "query/get_organization_configs": 2}), // one per provider process: the plan's and the apply's prefetch
			},
			{
				PreConfig: snapshot,
				Config:    batchedPolicies(e, 12, always),
				Check: accRequestsSince(e, &before, "creating 6 policies with batching.enabled = true", map[string]int{
					"submit/create_policies": 1}),
			},
			{
				PreConfig: snapshot,
				Config:    batchedPolicies(e, 6),
				Check: accRequestsSince(e, &before, "deleting 6 policies by default", map[string]int{
					"submit/delete_policies": 6, "submit/delete_policy": 0}),
			},
			{
				PreConfig: snapshot,
				Config:    batchedPolicies(e, 0, always),
				Check: accRequestsSince(e, &before, "deleting 6 policies with batching.enabled = true", map[string]int{
					"submit/delete_policies": 1}),
			},
		},
	})
}
