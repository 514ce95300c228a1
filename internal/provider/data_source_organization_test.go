package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// organizationTestChecks expects the four attributes of data.custody_organization.this.
func organizationTestChecks(orgID, orgName, userID, username string) []statecheck.StateCheck {
	at := func(attr, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.custody_organization.this", tfjsonpath.New(attr), knownvalue.StringExact(want))
	}
	return []statecheck.StateCheck{
		at("organization_id", orgID), at("organization_name", orgName), at("user_id", userID), at("username", username),
	}
}

func TestAccOrganizationDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:            e.config(`data "custody_organization" "this" {}`),
			ConfigStateChecks: organizationTestChecks(accOrg, "Acceptance Org", "user-root", "root"),
		}, {
			// The data source follows the provider's organization_id: the
			// fixtures' sub-organization, reached with the parent's key.
			Config: e.providerBlockFor(earnVaultsTestSubOrg) + `
data "custody_organization" "this" {}
`,
			ConfigStateChecks: organizationTestChecks(earnVaultsTestSubOrg, "Acme Payments EU", "user-root", "root"),
		}},
	})
}
