package review

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// sharedTenCorpus is oneTypeCorpus with the policies spread over ten
// destinations, as an organization's ten exchanges are.
func sharedTenCorpus(n int, limitWei int) []policyset.Policy {
	out := oneTypeCorpus(n, limitWei)
	for i := range out {
		out[i].Condition = fmt.Sprintf("activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.data == '0x' && eth.tx.to == '0x%040x' && eth.tx.value <= %d", 1+i%10, limitWei*(i+1))
	}
	return out
}

// judgeSalt makes each run's limits, and so its texts, new.
var judgeSalt atomic.Int64 // starts past every limit the other benchmarks use

// BenchmarkJudgeOrganization is the no-change check every plan now makes
// (target 100 ms at N = 1,000): the whole organization against two
// controls, judged once, with every policy text new, as a provider
// process meets them.
func BenchmarkJudgeOrganization(b *testing.B) {
	controls := []Control{{Name: "transactions never alone", ActivityTypes: []string{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}, AtMost: AtMostConsensus},
		{Name: "export denied", ActivityTypes: []string{"ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"}, AtMost: AtMostDenied}}
	for _, shape := range []struct {
		name   string
		corpus func(n, limitWei int) []policyset.Policy
	}{{"distinct", oneTypeCorpus}, {"shared10", sharedTenCorpus}} {
		b.Run(shape.name, func(b *testing.B) {
			fired := symbolic.GuardFired()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ps := shape.corpus(1000, int(1_000_000+judgeSalt.Add(1)))
				b.StartTimer()
				if got := NewOrg(ps, nil).JudgeOrganization(controls, nil); len(got) != 0 {
					b.Fatalf("the organization needs two approvers everywhere, yet: %+v", got)
				}
			}
			b.ReportMetric(float64(symbolic.GuardFired()-fired), "guard-fired")
		})
	}
}
