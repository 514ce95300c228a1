package symbolic

import (
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestMayApplyByTheTypeGuard: a condition's activity.type conjunct picks
// the types MayApply asks about; the answer is the one asking every
// type of the catalogue gives.
func TestMayApplyByTheTypeGuard(t *testing.T) {
	for _, cond := range []string{
		"activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 10",
		"activity.type in ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2', 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'] && private_key.tags.contains('x')",
		"eth.tx.value <= 10 && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
		"activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY' && eth.tx.value <= 10",
		"activity.resource == 'PRIVATE_KEY'",
		"activity.type != 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
	} {
		p := policyset.Policy{ID: "p", Effect: client.EffectAllow, Condition: cond}
		pf := readPolicy(p, new(int), false)
		reads := map[string]bool{}
		topReads(pf.cond, reads)
		var want []string
		for _, typ := range PolicyTypes {
			if activityValue(pf.cond, typ) != tvFalse && !readsAbsent(reads, typ) {
				want = append(want, typ)
			}
		}
		if got := MayApply(p); !slices.Equal(got, want) {
			t.Errorf("%s: MayApply %v, want %v", cond, got, want)
		}
	}
	if got := MayApply(policyset.Policy{ID: "q", Effect: client.EffectAllow,
		Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 10"}); !slices.Equal(got,
		[]string{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}) {
		t.Errorf("a transfer limit may apply to %v, want the transaction type alone", got)
	}
}
