package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const organizationNameTestAddr = "custody_organization_name.test"

// organizationNameTestConfig skips the credentials check, whose whoami
// would hide whether a rename reads the organization back with one.
func organizationNameTestConfig(e *accEmulator, name string) string {
	return e.providerBlock("skip_credentials_validation = true") +
		fmt.Sprintf("\nresource \"custody_organization_name\" \"test\" {\n  name = %q\n}\n", name)
}

// organizationNameTestIs asks the emulator for the organization's name.
func organizationNameTestIs(e *accEmulator, want string) resource.TestCheckFunc {
	return checkService(func(ctx context.Context) error {
		who, err := e.client.Whoami(ctx, client.WhoamiRequest{})
		if err != nil {
			return err
		}
		if who.OrganizationName != want {
			return fmt.Errorf("organization name is %q, want %q", who.OrganizationName, want)
		}
		return nil
	})
}

func organizationNameTestState(name string) []statecheck.StateCheck {
	return attrsAre(organizationNameTestAddr, map[string]knownvalue.Check{
		"id": knownvalue.StringExact(accOrg), "name": knownvalue.StringExact(name), "timeouts": knownvalue.Null()})
}

func TestAccOrganizationName_lifecycle(t *testing.T) {
	e := newAccEmulator(t)
	before := map[string]int{}
	imp := accImport{addr: organizationNameTestAddr}
	accTest(t, resource.TestCase{
		// Destroy only forgets the resource: the last name stays.
		CheckDestroy: organizationNameTestIs(e, "Renamed Org"),
		Steps: []resource.TestStep{
			{
				PreConfig:         func() { before = e.srv.RequestCounts() },
				Config:            organizationNameTestConfig(e, "Managed Org"),
				ConfigStateChecks: organizationNameTestState("Managed Org"),
				// The rename's answer names the organization: no whoami.
				Check: resource.ComposeAggregateTestCheckFunc(
					accRequestsSince(e, &before, "renaming the organization",
						map[string]int{"submit/update_organization_name": 1, "query/whoami": 0}),
					organizationNameTestIs(e, "Managed Org")),
				ConfigPlanChecks: thenEmptyPlan(),
			},
			{
				Config:            organizationNameTestConfig(e, "Renamed Org"),
				ConfigPlanChecks:  expectAction(organizationNameTestAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: organizationNameTestState("Renamed Org"),
				Check:             organizationNameTestIs(e, "Renamed Org"),
			},
			{
				// A rename outside Terraform shows as an update back.
				PreConfig: outside(t, func(ctx context.Context) error {
					_, err := e.client.UpdateOrganizationName(ctx, client.UpdateOrganizationNameParams{OrganizationName: "Hand Edited"})
					return err
				}),
				Config: organizationNameTestConfig(e, "Renamed Org"),
				ConfigPlanChecks: planAction(organizationNameTestAddr, plancheck.ResourceActionUpdate,
					plannedIs(organizationNameTestAddr, "name", knownvalue.StringExact("Renamed Org"))),
				Check: organizationNameTestIs(e, "Renamed Org"),
			},
			imp.verify(),
			imp.block(),
			{
				ResourceName:  organizationNameTestAddr,
				ImportState:   true,
				ImportStateId: "org-someone-else",
				ExpectError:   regexp.MustCompile(`(?s)Wrong organization id.*"org-someone-else" is not the configured\s+organization`),
			},
		},
	})
}

// TestAccOrganizationName_destroyKeepsName: destroying right after create
// must not restore or clear the name.
func TestAccOrganizationName_destroyKeepsName(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		CheckDestroy: organizationNameTestIs(e, "Kept After Destroy"),
		Steps: []resource.TestStep{{
			Config: organizationNameTestConfig(e, "Kept After Destroy"),
			Check:  organizationNameTestIs(e, "Kept After Destroy"),
		}},
	})
}

func TestAccOrganizationName_validation(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		// Nothing was applied: the emulator's name is untouched.
		CheckDestroy: organizationNameTestIs(e, "Acceptance Org"),
		Steps: []resource.TestStep{
			planFails(organizationNameTestConfig(e, ""), regexp.MustCompile(`(?s)name.*must not be empty or only white space`)),
			planFails(organizationNameTestConfig(e, strings.Repeat("x", 257)), regexp.MustCompile(`must be at most 256 bytes of UTF-8, as the\s+service\s+counts;\s+this\s+one\s+is\s+257\s+bytes\s+\(257\s+characters\)`)),
			planFails(organizationNameTestConfig(e, "  "), regexp.MustCompile(`must not be empty or only white space`)),
		},
	})
}
