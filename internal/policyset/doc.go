// Package policyset decides a request against a set of policies, in the
// service's documented order (reference §1 of the policy language):
//
//  1. a quorum of root users allows;
//  2. else, for an activity type only the root quorum governs, nothing
//     else can allow it;
//  3. else any applicable EFFECT_DENY denies (explicit deny);
//  4. else an applicable EFFECT_ALLOW allows, or, while its consensus does
//     not hold yet, makes the activity wait for approvals;
//  5. else nothing allows it (implicit deny). While a root user has
//     approved and the quorum is not reached, the activity waits: the root
//     quorum may still allow it.
//
// Every policy is evaluated, whatever the others give (no short-circuit),
// and each gets its own outcome. These words keep their meaning
// throughout:
//
//   - an effect is what a policy says (client.EffectAllow);
//   - an outcome is what one policy gives for one request (type
//     PolicyOutcome; client.Outcome*, plus OutcomeNotApplicable here);
//   - a verdict is what the set decides (Decision.Verdict), which may be
//     OUTCOME_DENY_IMPLICIT, which no single policy gives;
//   - a decision is the whole Decision: the verdict, the policies that
//     decided it and each policy's outcome;
//   - consensus is a policy's condition on approvals: a Tally counts the
//     policies RequiringConsensus, an activity that waits for consensus is
//     ACTIVITY_STATUS_CONSENSUS_NEEDED, and the client returns a
//     client.ConsensusNeededError for it (the wire keeps
//     OUTCOME_REQUIRES_CONSENSUS);
//   - an approval is one vote (approve_activity) toward consensus.
//
// Decide is pure: policies and a request in, a decision out. The emulator
// builds the request from an activity, its votes and its state; the
// provider's policy_decision function from its arguments; the lockout guard
// from whoami and the organization's policies. None of them decides by
// itself. The expressions themselves are policylang's.
package policyset
