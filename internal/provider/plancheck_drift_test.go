package provider

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// driftCheck inspects the plan's resource_drift: what a refresh found
// changed since the last apply, which Terraform prints as "Objects have
// changed outside of Terraform".
type driftCheck struct {
	addr  string   // "" for every resource
	attrs []string // attributes that must have drifted; none: nothing may drift
}

// expectNoDrift fails when a refresh found any change outside Terraform:
// an apply that wrote state the service does not agree with, or a read
// that rewrites a value on its own.
func expectNoDrift() plancheck.PlanCheck { return driftCheck{} }

// expectDrift fails unless addr drifted in at least attrs.
func expectDrift(addr string, attrs ...string) plancheck.PlanCheck {
	return driftCheck{addr: addr, attrs: attrs}
}

func (c driftCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	changed := map[string][]string{}
	for _, rc := range req.Plan.ResourceDrift {
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		for k := range mergedKeys(before, after) {
			if !reflect.DeepEqual(before[k], after[k]) {
				changed[rc.Address] = append(changed[rc.Address], k)
			}
		}
		if rc.Change.Before == nil || rc.Change.After == nil {
			changed[rc.Address] = append(changed[rc.Address], "(the whole object)")
		}
	}
	if c.addr == "" {
		for addr, attrs := range changed {
			slices.Sort(attrs)
			resp.Error = fmt.Errorf("%s changed outside of Terraform after refresh: %s", addr, strings.Join(attrs, ", "))
			return
		}
		return
	}
	for _, a := range c.attrs {
		if !slices.Contains(changed[c.addr], a) {
			resp.Error = fmt.Errorf("%s: refresh did not report %s as changed outside of Terraform (drifted: %v)", c.addr, a, changed[c.addr])
			return
		}
	}
}

func mergedKeys(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
