package provider

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// holdAloneOn is holdAlone on typ after the guard has read the
// organization (as the apply's check of a change has, before its create).
func holdAloneOn(t *testing.T, g *lockoutGuard, typ string) (func(), bool) {
	t.Helper()
	if _, err := g.baseline(t.Context()); err != nil {
		t.Fatal(err)
	}
	return g.holdAlone(t.Context(), typ)
}

// TestHoldAlone: an operation goes alone only where the engine allows the
// user acting alone, in the worst state counted, without approval.
func TestHoldAlone(t *testing.T) {
	t.Run("a grant allows the user alone", func(t *testing.T) {
		w := newGuardWorld(t, "terraform manages policies")
		g := w.newGuard(t, false)
		for _, typ := range batchTypes {
			sent, alone := holdAloneOn(t, g, typ)
			if !alone {
				t.Fatalf("%s: not alone, though a grant allows the user without approval", typ)
			}
			sent()
		}
		if _, alone := holdAloneOn(t, g, client.OpCreateOauthProviders.Type); alone {
			t.Fatal("an OAuth provider create went alone: the guard does not decide that type")
		}
	})
	t.Run("the grant needs a second approver", func(t *testing.T) {
		w := newGuardWorld(t)
		w.addPolicy(t, policyset.Policy{Name: "two approve policy changes", Effect: client.EffectAllow,
			Condition: "activity.resource == 'POLICY'", Consensus: "approvers.count() >= 2"})
		if _, alone := holdAloneOn(t, w.newGuard(t, false), client.OpCreatePolicies.Type); alone {
			t.Fatal("a create that needs a second approver went alone")
		}
	})
	t.Run("a change counted makes the user need approval", func(t *testing.T) {
		w := newGuardWorld(t, "terraform manages policies")
		g := w.newGuard(t, false)
		var diags diag.Diagnostics
		g.check(t.Context(), w.updating("terraform manages policies", policyset.Policy{Name: "terraform manages policies",
			Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'", Consensus: "approvers.count() >= 2"}), &diags)
		if _, alone := holdAloneOn(t, g, client.OpCreatePolicies.Type); alone {
			t.Fatalf("a create went alone while a planned update makes it need a second approver (%v)", diags)
		}
	})
	t.Run("a root user under a quorum of one", func(t *testing.T) {
		e := newAccEmulator(t)
		g := newLockoutGuard(newProviderData(accClient(t, e.url, e.key), 0), false)
		sent, alone := holdAloneOn(t, g, client.OpCreatePolicies.Type)
		if !alone {
			t.Fatal("a root user whom the root quorum of one lets act alone was batched")
		}
		sent()
	})
	t.Run("a root user under a quorum of two", func(t *testing.T) {
		e, _ := policyConsensusEmulator(t)
		g := newLockoutGuard(newProviderData(accClient(t, e.url, e.key), 0), false)
		if _, alone := holdAloneOn(t, g, client.OpCreatePolicies.Type); alone {
			t.Fatal("a root user who waits for a second root user went alone")
		}
	})
}

// TestHoldAloneAwaitsAnswers: a change counted while operations are on
// their way alone, which takes away the allow they went on, waits until
// they are answered before it goes on to be submitted; from then on,
// operations are batched.
func TestHoldAloneAwaitsAnswers(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	g := w.newGuard(t, false)
	sent, alone := holdAloneOn(t, g, client.OpCreatePolicies.Type)
	if !alone {
		t.Fatal("not alone, though a grant allows the user")
	}
	// A harmless change does not wait.
	var diags diag.Diagnostics
	g.check(t.Context(), creating(walletPolicy("wallets")), &diags)

	checked := make(chan diag.Diagnostics)
	go func() {
		var diags diag.Diagnostics
		g.check(t.Context(), w.updating("terraform manages policies", policyset.Policy{Name: "terraform manages policies",
			Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'", Consensus: "approvers.count() >= 2"}), &diags)
		checked <- diags
	}()
	select {
	case d := <-checked:
		t.Fatalf("the change went on while a create sent alone was unanswered (%v)", d)
	case <-time.After(200 * time.Millisecond):
	}
	sent()
	if d := <-checked; d.HasError() {
		t.Fatalf("the change was refused: %v", d)
	}
	if _, alone := g.holdAlone(t.Context(), client.OpCreatePolicies.Type); alone {
		t.Fatal("a create went alone after the change that makes it need approval")
	}
}
