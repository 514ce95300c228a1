package symbolic

import (
	"math/big"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
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
