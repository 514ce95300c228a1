package replay

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// benchPolicies are the bench's shape (the review's oneTypeCorpus): n
// signing allows, each to its own address with its own limit, needing
// 2 to 4 approvers.
func benchPolicies(n, limitWei int) []policyset.Policy {
	out := make([]policyset.Policy, n)
	for i := range out {
		out[i] = policyset.Policy{ID: fmt.Sprintf("p-%04d", i), Name: fmt.Sprintf("policy %d", i), Effect: client.EffectAllow,
			Condition: fmt.Sprintf("activity.type == '%s' && eth.tx.data == '0x' && eth.tx.to == '0x%040x' && eth.tx.value <= %d", signTx, i+1, limitWei*(i+1)),
			Consensus: fmt.Sprintf("approvers.count() >= %d", 2+i%3)}
	}
	return out
}

// benchHistory is m transfers, 100 a page as list_activities gives them
// (JSON, each vote carrying the request it signed, about a kilobyte),
// each to one of the n policies' addresses, of a value up to twice its
// limit, approved by one to four users.
func benchHistory(b *testing.B, m, n, limitWei int) [][]byte {
	r := rand.New(rand.NewPCG(51, 5))
	var pages [][]client.Activity
	for i := range m {
		if i%100 == 0 {
			pages = append(pages, nil)
		}
		dest := r.IntN(n)
		to := common.HexToAddress(fmt.Sprintf("0x%040x", dest+1))
		unsigned, err := payload.EncodeUnsignedEthTx(types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(2), Gas: 21000, To: &to, Value: big.NewInt(int64(r.IntN(2 * limitWei * (dest + 1))))}), nil)
		if err != nil {
			b.Fatal(err)
		}
		params, _ := json.Marshal(client.SignTransactionParams{SignWith: keyAddr, UnsignedTransaction: unsigned, Type: payload.TxTypeEthereum})
		votes := []client.Vote{vote("bot")}
		for j := range r.IntN(4) {
			votes = append(votes, vote(fmt.Sprint("user-", j)))
		}
		for j := range votes {
			votes[j].Message = fmt.Sprintf(`{"type":%q,"timestampMs":"1796000000000","organizationId":"org","parameters":%s}`, signTx, params)
			votes[j].Signature = strings.Repeat("ab", 72)
		}
		pages[len(pages)-1] = append(pages[len(pages)-1], client.Activity{ID: fmt.Sprint("act-", i), Type: signTx, CreatedAt: client.NewTimestamp(when),
			Intent: map[string]json.RawMessage{client.OpSignTransaction.IntentKey: params}, Votes: votes})
	}
	out := make([][]byte, len(pages))
	for i, p := range pages {
		raw, err := json.Marshal(client.ListActivitiesResponse{Activities: p})
		if err != nil {
			b.Fatal(err)
		}
		out[i] = raw
	}
	return out
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkPlanReplay is the replay's CPU in a plan that changes k of
// 1,000 signing policies in the bench's shape (each limit doubled),
// replaying 10,000 activities: the history rebuilt page by page once,
// then each change's sets (review.Org.Sets) and replay. Each page is
// decoded from JSON as a plan reads it, with the full activity shape (the
// client's list skips the votes' messages: this is its upper bound). It
// reports the process's CPU seconds per plan, the garbage collector's
// included.
func BenchmarkPlanReplay(b *testing.B) {
	const n, m, limitWei = 1000, 10000, 1000
	ps, raised := benchPolicies(n, limitWei), benchPolicies(n, 2*limitWei)
	pages := benchHistory(b, m, n, limitWei)
	for _, k := range []int{10, 100} {
		b.Run(fmt.Sprintf("changes=%d", k), func(b *testing.B) {
			moved := 0
			cpu := cpuSeconds()
			for b.Loop() {
				h := NewHistory(org)
				for _, raw := range pages {
					var page client.ListActivitiesResponse
					if err := json.Unmarshal(raw, &page); err != nil {
						b.Fatal(err)
					}
					h.Add(page.Activities)
				}
				o := review.NewOrg(ps, nil)
				for i := range k {
					j := i * (n / k)
					c := review.Change{Before: &ps[j], After: &raised[j]}
					moved += len(h.Replay(ForChange(o, c)).Moved)
				}
			}
			b.ReportMetric(float64(moved)/float64(b.N), "moved/op")
			b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
		})
	}
}
