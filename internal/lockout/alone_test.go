package lockout

import (
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// holdAloneOn is HoldAlone on typ after the guard has read the
// organization (as the apply's check of a change has, before its create).
func holdAloneOn(t *testing.T, g *Guard, typ string) (func(), bool) {
	t.Helper()
	if _, err := g.baseline(t.Context()); err != nil {
		t.Fatal(err)
	}
	return g.HoldAlone(t.Context(), typ)
}

// TestHoldAlone: an operation goes alone only where the engine allows the
// user acting alone, in the worst state counted, without approval.
func TestHoldAlone(t *testing.T) {
	t.Run("a grant allows the user alone", func(t *testing.T) {
		w := newGuardWorld(t, "terraform manages policies")
		g := w.newGuard(t, false)
		for _, typ := range BatchTypes {
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
		found := g.Check(t.Context(), w.updating("terraform manages policies", policyset.Policy{Name: "terraform manages policies",
			Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'", Consensus: "approvers.count() >= 2"}))
		if _, alone := holdAloneOn(t, g, client.OpCreatePolicies.Type); alone {
			t.Fatalf("a create went alone while a planned update makes it need a second approver (%v)", found)
		}
	})
	t.Run("a root user under a quorum of one", func(t *testing.T) {
		g := newTestWorld(t).newGuard(t, false)
		sent, alone := holdAloneOn(t, g, client.OpCreatePolicies.Type)
		if !alone {
			t.Fatal("a root user whom the root quorum of one lets act alone was batched")
		}
		sent()
	})
	t.Run("a root user under a quorum of two", func(t *testing.T) {
		g := newTestWorld(t, quorumOfTwo(t)).newGuard(t, false)
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
	g.Check(t.Context(), creating(walletPolicy("wallets")))

	checked := make(chan []Finding)
	go func() {
		checked <- g.Check(t.Context(), w.updating("terraform manages policies", policyset.Policy{Name: "terraform manages policies",
			Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'", Consensus: "approvers.count() >= 2"}))
	}()
	select {
	case d := <-checked:
		t.Fatalf("the change went on while a create sent alone was unanswered (%v)", d)
	case <-time.After(200 * time.Millisecond):
	}
	sent()
	if d := <-checked; len(errorsOf(d)) > 0 {
		t.Fatalf("the change was refused: %v", d)
	}
	if _, alone := g.HoldAlone(t.Context(), client.OpCreatePolicies.Type); alone {
		t.Fatal("a create went alone after the change that makes it need approval")
	}
}
