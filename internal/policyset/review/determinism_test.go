package review

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// sameEveryRunEnv makes this test binary print the report and exit: the
// child processes of TestReportSameEveryProcess.
const sameEveryRunEnv = "CUSTODY_REVIEW_PRINT_REPORT"

// sameEveryRunReport is the report the processes compare, with the
// organization's policies shuffled by seed (the service lists them in an
// order of its own, the function in the configuration's): a freeze deny
// that now exempts keys with a second tag, in an organization whose
// policies also read sliced strings.
func sameEveryRunReport(seed uint64) string {
	raw := "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
	before := []policyset.Policy{
		{ID: "p-two", Effect: client.EffectAllow, Condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'", Consensus: "approvers.count() >= 2"},
		{ID: "p-hot", Effect: client.EffectAllow, Condition: "activity.type == '" + raw + "' && private_key.tags.contains('tag-hot')"},
		{ID: "p-freeze", Effect: client.EffectDeny, Condition: "activity.resource == 'PRIVATE_KEY' && private_key.tags.contains('tag-frozen')"},
		{ID: "p-tokens", Effect: client.EffectAllow, Condition: "activity.type == '" + signTx + "' && eth.tx.data[0..10] in ['0xa9059cbb'] && eth.tx.data[0..4] == '0xa9'"},
		{ID: "p-export", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'", Consensus: "approvers.count() >= 2"},
		{ID: "p-wallet-export", Effect: client.EffectDeny, Condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'"},
	}
	change := Change{Before: &before[2], After: &policyset.Policy{ID: "p-freeze", Effect: client.EffectDeny,
		Condition: "activity.resource == 'PRIVATE_KEY' && private_key.tags.contains('tag-frozen') && !private_key.tags.contains('tag-market-making')"}}
	org := slices.Clone(before)
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(org), func(i, j int) { org[i], org[j] = org[j], org[i] })
	return NewOrg(org, nil).Report(change).Detail(1000)
}

// The same sets, in any order, give the same report in every process. The plan and
// policy_changes run in different processes and must show the same
// example, and a function is pure; Go's map order, which differs from
// one process (and one map) to the next, must not reach the solver's
// clauses (another valid model) or the witness. In one process the
// caches of read policies would hide it, so each report is made by a
// process of its own.
func TestReportSameEveryProcess(t *testing.T) {
	if os.Getenv(sameEveryRunEnv) != "" {
		seed, _ := strconv.ParseUint(os.Getenv(sameEveryRunEnv), 10, 64)
		fmt.Print(sameEveryRunReport(seed))
		os.Exit(0)
	}
	var first string
	for i := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReportSameEveryProcess$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", sameEveryRunEnv, i))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
		if i == 0 {
			first = string(out)
		} else if string(out) != first {
			t.Fatalf("two processes give different reports for the same sets:\n%s\nvs\n%s", out, first)
		}
	}
	if first != sameEveryRunReport(0) {
		t.Error("the child processes did not print the report")
	}
}
