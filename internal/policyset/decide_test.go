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

// TestDecideWithSharesItsEvaluator: one evaluator deciding two sets for
// one request (the access review's before and after) gives what Decide
// gives for each, whichever set it decides first, for every case of the
// table against the case's policies and against them without the first.
func TestDecideWithSharesItsEvaluator(t *testing.T) {
	cases := policysettest.Load(t)
	for _, c := range cases {
		req := c.EngineRequest(t)
		all := c.EnginePolicies()
		sets := [][]policyset.Policy{all, nil}
		if len(all) > 0 {
			sets[1] = all[1:]
		}
		for _, order := range [][2]int{{0, 1}, {1, 0}} {
			e := policyset.NewEvaluator(req)
			for _, i := range order {
				got, want := policyset.DecideWith(e, sets[i], req), policyset.Decide(sets[i], req)
				if got.Verdict != want.Verdict || got.ByRootQuorum != want.ByRootQuorum || len(got.Policies) != len(want.Policies) {
					t.Errorf("%s, set %d after %v: DecideWith gives %+v, Decide %+v", c.Name, i, order, got, want)
				}
			}
		}
	}
}
