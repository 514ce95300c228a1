package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestAccIdenticalResourcesStayDistinct creates identical policies in
// parallel: each must be its own object. Equal bodies sent in the same
// millisecond would be one activity to the service (it deduplicates by
// body), leaving several resources sharing one policy.
func TestAccIdenticalResourcesStayDistinct(t *testing.T) {
	e := newAccEmulator(t)
	const n = 8
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: e.config(fmt.Sprintf(`
resource "custody_policy" "same" {
  count  = %d
  name   = "identical"
  effect = "EFFECT_ALLOW"
}
`, n)),
			Check: func(s *terraform.State) error {
				ids := map[string]bool{}
				for _, rs := range s.RootModule().Resources {
					ids[rs.Primary.ID] = true
				}
				list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
				if err != nil {
					return err
				}
				if len(ids) != n || len(list.Policies) != n {
					return fmt.Errorf("%d distinct ids in state and %d policies in the service, want %d of each", len(ids), len(list.Policies), n)
				}
				return nil
			},
		}},
	})
}
