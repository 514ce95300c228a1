package policyset_test

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/policysettest"
)

// TestDecisionTable runs the shared table of decisions against the engine;
// the emulator's and the function's suites run the same table.
func TestDecisionTable(t *testing.T) {
	cases := policysettest.Load(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			req := c.EngineRequest(t)
			if why := c.Mismatch(policyset.Decide(c.EnginePolicies(), req)); why != "" {
				t.Error(why)
			}
		})
	}
}

// TestDecideTallyAgrees: a tally kept by adding and taking away outcomes
// decides as DecideResults does over the same policies, for every case of
// the table and every subset of its policies taken away one by one (the
// lockout guard's use).
func TestDecideTallyAgrees(t *testing.T) {
	cases := policysettest.Load(t)
	for _, c := range cases {
		req := c.EngineRequest(t)
		e := policyset.NewEvaluator(req)
		var results []policyset.Result
		var tally policyset.Tally
		for _, p := range c.EnginePolicies() {
			r := e.Outcome(p)
			results = append(results, r)
			tally.Add(r, 1)
		}
		for {
			full, fromTally := policyset.DecideResults(results, req), policyset.DecideTally(tally, req)
			if full.Outcome != fromTally.Outcome || full.ByRootQuorum != fromTally.ByRootQuorum || full.RootQuorumOnly != fromTally.RootQuorumOnly {
				t.Errorf("%s with %d policies: DecideTally gives %+v, DecideResults %+v", c.Name, len(results), fromTally, full)
			}
			if len(results) == 0 {
				break
			}
			tally.Add(results[0], -1)
			results = results[1:]
		}
	}
}
