package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// What the acceptance tests of the exclusive resources share.

// removalsCheck checks the planned removals of addr against want, called
// when the plan is checked: a step's PreConfig makes the object whose id
// the check names.
type removalsCheck struct {
	addr string
	want func() []knownvalue.Check
}

// expectRemovals is the plan check that addr plans to remove, in this
// order, the objects want describes.
func expectRemovals(addr string, want func() []knownvalue.Check) plancheck.PlanCheck {
	return removalsCheck{addr: addr, want: want}
}

func (c removalsCheck) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	plancheck.ExpectKnownValue(c.addr, tfjsonpath.New("removals"), knownvalue.ListExact(c.want())).CheckPlan(ctx, req, resp)
}

// removalOf describes one element of removals: its attributes, each
// exactly (a string) or by a check.
func removalOf(attrs map[string]any) knownvalue.Check {
	checks := make(map[string]knownvalue.Check, len(attrs))
	for k, v := range attrs {
		switch v := v.(type) {
		case string:
			checks[k] = knownvalue.StringExact(v)
		case knownvalue.Check:
			checks[k] = v
		default:
			panic(fmt.Sprintf("removalOf: %s is a %T", k, v))
		}
	}
	return knownvalue.ObjectExact(checks)
}

// importByIdentityStep imports addr by an import block with its identity,
// planning no change; it is skipped on a CLI without resource identity
// (Terraform before 1.12), where the compatibility suite's newer CLIs run it.
func importByIdentityStep(t *testing.T, config, addr string) resource.TestStep {
	return resource.TestStep{Config: config, ResourceName: addr, ImportState: true,
		ImportStateKind: resource.ImportBlockWithResourceIdentity,
		SkipFunc: func() (bool, error) {
			ok, why := testCLI(t).Supports(testclis.Identity)
			if !ok {
				t.Logf("import by identity skipped: %s", why)
			}
			return !ok, nil
		}}
}

// serviceHolds checks, by the service's own list (list returns the names
// it holds), that it holds exactly the objects named want.
func serviceHolds(what string, list func() ([]string, error), want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := list()
		if err != nil {
			return err
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("the service holds the %s %q, want %q", what, got, want)
		}
		return nil
	}
}
