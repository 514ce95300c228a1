package review

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// oneTypeCorpus is n policies that all govern the same activity type, as
// an organization's signing policies do: each allows ETH transfers to its
// own address up to its own limit, with 2 to 4 approvers (the bench's
// corpus, bench/runner).
func oneTypeCorpus(n int, limitWei int) []policyset.Policy {
	out := make([]policyset.Policy, n)
	for i := range out {
		out[i] = policyset.Policy{ID: fmt.Sprintf("p-%04d", i), Name: fmt.Sprintf("policy %d", i), Effect: client.EffectAllow,
			Condition: fmt.Sprintf("activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.data == '0x' && eth.tx.to == '0x%040x' && eth.tx.value <= %d", i+1, limitWei*(i+1)),
			Consensus: fmt.Sprintf("approvers.count() >= %d", 2+i%3)}
	}
	return out
}

// BenchmarkPlanOneType: a plan that changes the condition of every one of
// n policies of one activity type (each limit doubled): report, findings
// and controls for each, on one Org.
func BenchmarkPlanOneType(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ps, changed := oneTypeCorpus(n, 1000), oneTypeCorpus(n, 2000)
			controls := []Control{{Name: "transactions never alone", ActivityTypes: []string{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}, AtMost: AtMostConsensus},
				{Name: "export denied", ActivityTypes: []string{"ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"}, AtMost: AtMostDenied}}
			var kept uint64
			for i := 0; i < b.N; i++ {
				o := NewOrg(ps)
				for k := range ps {
					c := Change{Before: &ps[k], After: &changed[k]}
					o.Report(c)
					o.Findings(c)
					o.CheckControls(c, controls)
				}
				b.StopTimer()
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				runtime.KeepAlive(o) // what the Org holds at the end of the plan
				kept = max(kept, m.HeapAlloc)
				b.StartTimer()
			}
			b.ReportMetric(float64(kept)/(1<<20), "MiB-kept")
		})
	}
}
