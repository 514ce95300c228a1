// Package review tells what a change of policies does to who can do what:
// it builds requests from the policies themselves, decides each with the
// one engine (internal/policyset) before and after, and reports the
// decisions that change. It is a reviewer's aid, not a proof: the requests
// are a sample, chosen from the values the policies compare against.
//
// Everything here is a pure function of policy sets, safe for concurrent
// use, and deterministic: the same policies give the same requests, rows
// and text in the same order, whatever order changes arrive in.
//
// Words used throughout: a change is one policy's before and after
// version; a row is one sampled request whose decision a change moves; a
// control is a rule the organization declares (no single user may sign);
// a breach is a request that breaks a control; a finding is a fact about a
// changed policy itself (never applies, duplicate, shadowed).
package review

import "github.com/custody-labs/terraform-provider-custody/internal/policyset"

// Change is one planned change of one policy: Before is nil for a create,
// After nil for a delete. Only effect, condition, consensus and time count:
// a change of name (or of anything else) alone moves no decision.
type Change struct {
	Before, After *policyset.Policy
}

// Row is one sampled request whose decision differs between two policy
// sets.
type Row struct {
	// Type is the request's activity type (ACTIVITY_TYPE_...).
	Type string
	// Before and After are the verdicts (OUTCOME_ALLOW,
	// OUTCOME_REQUIRES_CONSENSUS, OUTCOME_DENY_EXPLICIT,
	// OUTCOME_DENY_IMPLICIT), as policy_decision returns them.
	Before, After string
	// Request is the sampled request; Example is it as HCL that
	// provider::custody::policy_decision accepts as its request argument
	// as is (one line or several, no trailing newline).
	Request policyset.Request
	Example string
	// Words says who and what the row concerns ("one approver, alice,
	// signing a transfer of 2 ETH to 0x11…"), for the reviewer.
	Words string
}

// Widening tells whether the row gives more than before: anything to
// OUTCOME_ALLOW, or a deny to OUTCOME_REQUIRES_CONSENSUS.
func (r Row) Widening() bool { return widening(r.Before, r.After) }

// Report is what one change, or a whole before and after, does.
type Report struct {
	// Rows are the changed decisions, widening first, then by activity
	// type, then in the sample's order.
	Rows []Row
	// Requests and Types say what was covered: how many requests over how
	// many activity types were decided.
	Requests, Types int
	// Notes name changed policies that read what the sampler cannot vary
	// (so the rows may miss what they do), one sentence each.
	Notes []string
}

// Empty tells whether the report has nothing to show: no row and no note.
func (r Report) Empty() bool { return len(r.Rows) == 0 && len(r.Notes) == 0 }

// Detail is the report as a warning's detail: at most max rows, each
// "  <TYPE>: <BEFORE> -> <AFTER>" then its words and its example indented
// (every line indented by at least two spaces, so that Terraform does not
// re-wrap it), "  and N more" when rows were left out, the notes, and a
// last line "  Checked <R> requests over <T> activity types.", the
// report's coverage.
func (r Report) Detail(max int) string { return detail(r, max) }

// Control is a rule the organization declares: for the activity types
// listed, at most consensus ("consensus": no single non-root user may be
// allowed alone) or nothing at all ("denied": no set of non-root approvers
// may be allowed; only the root quorum).
type Control struct {
	Name          string
	ActivityTypes []string
	AtMost        string // AtMostConsensus or AtMostDenied
}

// The values of Control.AtMost.
const (
	AtMostConsensus = "consensus"
	AtMostDenied    = "denied"
)

// Breach is a sampled request that breaks a control.
type Breach struct {
	Control Control
	Row     Row // Before: the outcome before the plan; After: in the most permissive state
	// Already: the request broke the control before the plan too (a
	// warning); else the plan newly lets it through (an error).
	Already bool
}

// Finding is a fact about a changed policy in its after version.
type Finding struct {
	Kind   string // FindingNeverApplies, FindingDuplicate or FindingShadowed
	Detail string // one or more lines, each indented by two spaces
}

// The kinds of Finding.
const (
	FindingNeverApplies = "never applies"
	FindingDuplicate    = "duplicate"
	FindingShadowed     = "shadowed"
)
