package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// firstReads is how many requests a command sends when the provider is
// configured: whoami, list_policies and get_organization_configs.
const firstReads = 3

// readRounds splits the requests that arrived before the first submit into
// rounds: a request that arrives more than half a latency after the one
// before it waited for an answer (the latency delays every answer by
// latency), so it starts a new round.
func readRounds(arrivals []emulator.Arrival, latency time.Duration) [][]string {
	var rounds [][]string
	for i, a := range arrivals {
		if strings.HasPrefix(a.Operation, "submit/") {
			break
		}
		if i == 0 || a.At.Sub(arrivals[i-1].At) > latency/2 {
			rounds = append(rounds, nil)
		}
		rounds[len(rounds)-1] = append(rounds[len(rounds)-1], a.Operation)
	}
	return rounds
}

// TestAccFirstReadsAreOneRoundTrip: every request waits 400 ms, and the
// command's first reads (whoami, list_policies, get_organization_configs)
// go out together, so an apply's plan process waits one round trip, and
// its apply process one, then the adoption listing's, before the first
// submit, for creates and for deletes alike. The provider's user is a
// root user with no allowing policy, whose lockout guard needs the root
// quorum: it was read after the rest, six rounds in all.
func TestAccFirstReadsAreOneRoundTrip(t *testing.T) {
	const latency = 400 * time.Millisecond
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.Faults.Latency = emulator.FaultRate{Rate: 1}
		o.Faults.Delay = latency
	})
	since := 0
	mark := func() { since = len(e.srv.RequestArrivals()) }
	threeRounds := func(what string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			rounds := readRounds(e.srv.RequestArrivals()[since:], latency)
			want := [][]string{nil, nil, {"query/" + string(client.QueryListActivities)}}
			if len(rounds) != len(want) || !slices.Equal(rounds[2], want[2]) {
				return fmt.Errorf("%s: rounds of reads before the first submit %q, want 3: the plan's first reads, the apply's, "+
					"and the adoption listing", what, rounds)
			}
			for _, round := range rounds[:2] {
				slices.Sort(round)
				first := []string{"query/" + string(client.QueryGetOrganizationConfigs), "query/" + string(client.QueryListPolicies),
					"query/" + string(client.QueryWhoami)}
				if !slices.Equal(round, first) {
					return fmt.Errorf("%s: a process's first round %q, want %q", what, round, first)
				}
			}
			return nil
		}
	}
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{PreConfig: mark, Config: batchedPolicies(e, 3), Check: threeRounds("creating 3 policies")},
			{PreConfig: mark, Config: batchedPolicies(e, 0), Check: threeRounds("deleting 3 policies")},
		},
	})
}
