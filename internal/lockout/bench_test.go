package lockout

import (
	"context"
	"fmt"
	"testing"

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
	if _, err := w.Client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: policies}); err != nil {
		b.Fatal(err)
	}
	c := newTestClient(b, w.URL, w.key)
	list, err := c.ListPolicies(ctx, client.ListPoliciesRequest{})
	if err != nil {
		b.Fatal(err)
	}
	changes := make([]Change, n)
	for i, p := range list.Policies {
		after := policyset.Policy{Name: p.PolicyName + " renamed", Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus}
		changes[i] = Change{ID: p.PolicyID, After: &after, What: "updating policy " + p.PolicyName}
	}
	for b.Loop() {
		refresh, err := c.ListPolicies(ctx, client.ListPoliciesRequest{}) // the refresh's list
		if err != nil {
			b.Fatal(err)
		}
		g := New(clientReader{c: c, policies: refresh.Policies}, false)
		for _, ch := range changes {
			if found := g.Check(ctx, ch); len(errorsOf(found)) > 0 {
				b.Fatal(found)
			}
		}
	}
}
