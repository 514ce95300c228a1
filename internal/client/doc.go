// Package client is the typed Go client of the custody service's public API.
//
// It is the one place that speaks the wire protocol: the submit envelope,
// the API-key stamp (X-Stamp), activity polling, retries and typed errors.
// Mutations are activities, sent to /public/v1/submit/<operation>; reads
// are queries, sent to /public/v1/query/<operation>. It knows nothing of
// Terraform, so that the provider, the emulator's tests and any other tool
// can use it alike.
//
// Two typed errors are not failures of the activity. A *LostAnswerError is
// a submit whose answer was lost: it may or may not have acted, and
// FindSubmission tells which. A *ConsensusNeededError is an activity that
// cannot complete until others vote (ACTIVITY_STATUS_CONSENSUS_NEEDED) or
// until authenticators are presented; WaitForActivity resumes waiting.
// "Outcome" is reserved for a policy's outcome, the wire's OUTCOME_*.
package client
