package symbolic

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"math/big"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// A raised limit is one region, whose witness sits at the new limit.
func TestRegionsRaisedLimit(t *testing.T) {
	two := policyset.Policy{ID: "two", Name: "two sign", Effect: client.EffectAllow, Condition: "activity.action == 'SIGN'", Consensus: "approvers.count() >= 2"}
	lim10 := policyset.Policy{ID: "lim", Name: "limit", Effect: client.EffectAllow, Condition: "activity.action == 'SIGN' && eth.tx.value <= 10000000000000000000"}
	lim20 := lim10
	lim20.Condition = "activity.action == 'SIGN' && eth.tx.value <= 20000000000000000000"
	rs, more, guarded := Regions(diffType, []policyset.Policy{two, lim10}, []policyset.Policy{two, lim20}, []policyset.Policy{lim10, lim20}, nil)
	if guarded || more != 0 || len(rs) != 1 {
		t.Fatalf("regions %+v, more %d, guarded %v", rs, more, guarded)
	}
	r := rs[0]
	if r.Before != client.OutcomeRequiresConsensus || r.After != client.OutcomeAllow || !r.Proved {
		t.Fatalf("region %+v", r)
	}
	tx, _ := r.Witness.Keyword("eth.tx")
	m, _ := tx.(map[string]any)
	v, ok := m["value"].(*big.Int)
	if !ok {
		t.Fatalf("the witness has no eth.tx.value: %+v", r.Witness)
	}
	if v.String() != "20000000000000000000" || len(r.Witness.Approvers) != 1 {
		t.Errorf("witness value %s with %d approvers, want the closed end 20 ETH and the requester alone", v, len(r.Witness.Approvers))
	}
	if w := r.Words(); w != "eth.tx.value from 10000000000000000001 wei (10.000000000000000001 ETH) to 20000000000000000000 wei (20 ETH)" {
		t.Errorf("words %q", w)
	}
}

// A consensus on credentials gives a witness whose credentials are of a
// type the catalogue has, one per approver.
func TestRegionsCredentialTypes(t *testing.T) {
	two := policyset.Policy{ID: "two", Effect: client.EffectAllow, Consensus: "approvers.count() >= 2"}
	passkey := policyset.Policy{ID: "pk", Effect: client.EffectAllow,
		Consensus: "credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')"}
	rs, _, _ := Regions(diffType, []policyset.Policy{two}, []policyset.Policy{two, passkey}, []policyset.Policy{passkey}, nil)
	if len(rs) == 0 {
		t.Fatal("no region")
	}
	for _, r := range rs {
		if !r.Proved || len(r.Witness.Credentials) != len(r.Witness.Approvers) {
			t.Fatalf("region %+v", r)
		}
		for _, c := range r.Witness.Credentials {
			if c.Type == "" || c.Type == "other" || c.UserID == "" {
				t.Errorf("credential %+v", c)
			}
		}
	}
}

// A region's witness has the fewest approvers any request of the region
// has, whatever count the solver's first model had: a new allow that
// needs three approvers, two of them tagged, cuts four regions, each by
// whether the two counts hold.
func TestRegionsFewestApprovers(t *testing.T) {
	three := policyset.Policy{ID: "three", Effect: client.EffectAllow, Condition: "activity.action == 'SIGN'",
		Consensus: "approvers.count() >= 3 && approvers.filter(u, u.tags.contains('ops')).count() >= 2"}
	rs, more, guarded := Regions(diffType, nil, []policyset.Policy{three}, []policyset.Policy{three}, nil)
	if guarded || more != 0 || len(rs) != 4 {
		t.Fatalf("regions %+v, more %d, guarded %v", rs, more, guarded)
	}
	// By whether "count() >= 3" and "two tagged" hold: the fewest approvers.
	least := map[[2]bool]int{{true, true}: 3, {false, true}: 2, {false, false}: 1, {true, false}: 3}
	for _, r := range rs {
		if !r.Proved || len(r.Atoms) != 2 {
			t.Fatalf("region %+v", r)
		}
		k := [2]bool{r.Atoms[0].Holds, r.Atoms[1].Holds}
		if n := len(r.Witness.Approvers); n != least[k] {
			t.Errorf("%s -> %s where %v: the witness has %d approvers, want %d", r.Before, r.After, k, n, least[k])
		}
	}
}
