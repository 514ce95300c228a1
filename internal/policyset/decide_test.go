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
// decides as DecideOutcomes does over the same policies, for every case of
// the table and every subset of its policies taken away one by one (the
// lockout guard's use).
func TestDecideTallyAgrees(t *testing.T) {
	cases := policysettest.Load(t)
	for _, c := range cases {
		req := c.EngineRequest(t)
		e := policyset.NewEvaluator(req)
		var outcomes []policyset.PolicyOutcome
		var tally policyset.Tally
		for _, p := range c.EnginePolicies() {
			r := e.Outcome(p)
			outcomes = append(outcomes, r)
			tally.Add(r, 1)
		}
		for {
			full, fromTally := policyset.DecideOutcomes(outcomes, req), policyset.DecideTally(tally, req)
			if full.Verdict != fromTally.Verdict || full.ByRootQuorum != fromTally.ByRootQuorum || full.RootQuorumOnly != fromTally.RootQuorumOnly {
				t.Errorf("%s with %d policies: DecideTally gives %+v, DecideOutcomes %+v", c.Name, len(outcomes), fromTally, full)
			}
			if len(outcomes) == 0 {
				break
			}
			tally.Add(outcomes[0], -1)
			outcomes = outcomes[1:]
		}
	}
}
