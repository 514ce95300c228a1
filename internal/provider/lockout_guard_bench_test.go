package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// BenchmarkLockoutGuardPlan is the guard's work in a plan that updates
// every one of N policies: its baseline (whoami and the list, served by an
// in-process emulator, the list already cached as a refresh leaves it) and
// one check per policy. `make bench` measures the same plan end to end.
func BenchmarkLockoutGuardPlan(b *testing.B) {
	const n = 1000
	w := newGuardWorld(b, "terraform manages policies")
	ctx := context.Background()
	var policies []client.PolicyParams
	for i := 1; i < n; i++ {
		policies = append(policies, client.PolicyParams{PolicyName: fmt.Sprintf("bench-%d", i), Effect: client.EffectAllow,
			Condition: "activity.resource == 'PRIVATE_KEY'"})
	}
	if _, err := w.e.client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: policies}); err != nil {
		b.Fatal(err)
	}
	c := accClient(b, w.e.url, w.key)
	list, err := c.ListPolicies(ctx, client.ListPoliciesRequest{})
	if err != nil {
		b.Fatal(err)
	}
	changes := make([]plannedPolicyChange, n)
	for i, p := range list.Policies {
		after := policyset.Policy{Name: p.PolicyName + " renamed", Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus}
		changes[i] = plannedPolicyChange{id: p.PolicyID, after: &after, what: "updating policy " + p.PolicyName}
	}
	for b.Loop() {
		pd := newProviderData(c, 0)
		if _, err := cachedPolicies(ctx, pd); err != nil { // the refresh's list
			b.Fatal(err)
		}
		g := newLockoutGuard(pd, false)
		var diags diag.Diagnostics
		for _, ch := range changes {
			g.check(ctx, ch, &diags)
		}
		if diags.HasError() {
			b.Fatal(diags)
		}
	}
}
