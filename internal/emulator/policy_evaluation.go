package emulator

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// evaluation is what the policies make of an activity after a vote: every
// applicable policy's outcome, as the service records it, and the
// decision of the set (policyset.Decide, the one engine the provider's
// policy_decision function and lockout guard use too).
type evaluation struct {
	outcomes []client.PolicyEvaluation
	decision policyset.Decision
	failure  *client.Status // why a denied activity failed
}

// evaluate runs every policy of the organization against rec as it stands,
// with the approvals cast so far.
func (s *Server) evaluate(rec *activityRecord) evaluation {
	stored := s.policiesByID()
	policies := make([]policyset.Policy, len(stored))
	for i, p := range stored {
		policies[i] = policyset.FromClient(p)
	}
	d := policyset.Decide(policies, s.request(rec))
	ev := evaluation{outcomes: []client.PolicyEvaluation{}, decision: d}
	for i, r := range d.Policies {
		// The service records the policies that applied only.
		if r.Outcome != policyset.OutcomeNotApplicable {
			ev.outcomes = append(ev.outcomes, client.PolicyEvaluation{PolicyID: stored[i].PolicyID, Outcome: r.Outcome})
		}
	}
	switch d.Verdict {
	case client.OutcomeDenyExplicit:
		first := stored[d.DecidedBy[0]]
		ev.failure = failure(client.CodePermissionDenied, "activity %s is denied by policy %s (%q)", rec.Activity.ID, first.PolicyID, first.PolicyName)
	case client.OutcomeDenyImplicit:
		why := "no policy allows it"
		if d.RootQuorumOnly {
			why = "only the root quorum can approve " + rec.Activity.Type
		}
		ev.failure = failure(client.CodePermissionDenied, "activity %s is implicitly denied: %s", rec.Activity.ID, why)
	}
	return ev
}
