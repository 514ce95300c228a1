package symbolic

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

func TestSmoke(t *testing.T) {
	const sign = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
	base := []policyset.Policy{
		{ID: "two", Name: "two sign", Effect: "EFFECT_ALLOW", Condition: "activity.action == 'SIGN'", Consensus: "approvers.count() >= 2"},
		{ID: "guard", Name: "guard", Effect: "EFFECT_DENY", Condition: "eth.tx.chain_id != 1 || !private_key.tags.contains('tag-approved')"},
	}
	lim10 := policyset.Policy{ID: "lim", Name: "limit", Effect: "EFFECT_ALLOW", Condition: "activity.action == 'SIGN' && eth.tx.value <= 10000000000000000000"}
	lim20 := lim10
	lim20.Condition = "activity.action == 'SIGN' && eth.tx.value <= 20000000000000000000"
	ms, g := moves(nil, sign, append(base[:1:1], lim10), append(base[:1:1], lim20), nil)
	for _, m := range ms {
		t.Logf("%+v", m)
	}
	if g || len(ms) != 1 || !ms[0].Proved {
		t.Fatalf("moves %v", ms)
	}
	newAllow := policyset.Policy{ID: "new", Name: "new", Effect: "EFFECT_ALLOW", Condition: "activity.action == 'SIGN'"}
	ms, _ = moves(nil, sign, base, append(base[:2:2], newAllow), nil)
	for _, m := range ms {
		t.Logf("%+v", m)
	}
}
