package provider

import (
	"fmt"
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
			Config: fmt.Sprintf(`
provider "custody" {
  base_url        = %q
  organization_id = %q
  api_public_key  = %q
  api_private_key = %q
}

data "custody_organization" "this" {}
`, e.url, earnVaultsTestSubOrg, e.key.PublicKeyHex(), e.key.PrivateKeyHex()),
			ConfigStateChecks: organizationTestChecks(earnVaultsTestSubOrg, "Acme Payments EU", "user-root", "root"),
		}},
	})
}
