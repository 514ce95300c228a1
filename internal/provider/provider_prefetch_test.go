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
// configured: whoami, list_policies, get_organization_configs and the
// adoption listing's two list_activities.
const firstReads = 5

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
// command's first reads (whoami, list_policies, get_organization_configs
// and the adoption listing) go out together, so an apply's plan and
// apply processes each wait one round trip before the first submit, for
// creates and for deletes alike. The provider's user is a root user with
// no allowing policy, whose lockout guard needs the root quorum: it was
// read after the rest, as was the adoption listing, six rounds in all.
func TestAccFirstReadsAreOneRoundTrip(t *testing.T) {
	const latency = 400 * time.Millisecond
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.Faults.Latency = emulator.FaultRate{Rate: 1}
		o.Faults.Delay = latency
	})
	since := 0
	mark := func() { since = len(e.srv.RequestArrivals()) }
	twoRounds := func(what string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			rounds := readRounds(e.srv.RequestArrivals()[since:], latency)
			if len(rounds) != 2 {
				return fmt.Errorf("%s: %d rounds of reads before the first submit, want 2 (the plan's and the apply's): %q", what, len(rounds), rounds)
			}
			apply := rounds[1]
			if len(apply) != firstReads {
				return fmt.Errorf("%s: the apply's one round %q, want the %d first reads", what, apply, firstReads)
			}
			for _, q := range []client.Query{client.QueryWhoami, client.QueryListPolicies, client.QueryGetOrganizationConfigs, client.QueryListActivities} {
				if !slices.Contains(apply, "query/"+string(q)) {
					return fmt.Errorf("%s: the apply's one round %q lacks %s", what, apply, q)
				}
			}
			return nil
		}
	}
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{PreConfig: mark, Config: batchedPolicies(e, 3), Check: twoRounds("creating 3 policies")},
			{PreConfig: mark, Config: batchedPolicies(e, 0), Check: twoRounds("deleting 3 policies")},
		},
	})
}
