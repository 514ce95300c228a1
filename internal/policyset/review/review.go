// Package review tells what a change of policies does to who can do what,
// for every request, not a sample: internal/policyset/symbolic compiles
// the policies and answers "is there a request that before decides X and
// after decides Y?"; an answer of "none" is a proof, and every request it
// shows has been decided by the one engine (internal/policyset) before
// it is shown. What the analysis cannot decide is said as "not proved",
// naming what stopped it, never as a fact.
//
// Everything here is a pure function of policy sets and the root users'
// ids, safe for concurrent use, and deterministic: the same policies give
// the same rows and text in the same order, whatever order changes arrive
// in.
//
// Words used throughout: a change is one policy's before and after
// version; a row is a region of requests of one or more activity types
// that the change moves from one verdict to another, with a witness; a
// control is a rule the organization declares (no single user may sign);
// a breach is a request that breaks a control; a finding is a fact about
// a changed policy itself (never applies, duplicate, shadowed,
// redundant).
package review

import (
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// Change is one planned change of one policy: Before is nil for a create,
// After nil for a delete. Only effect, condition, consensus and time count:
// a change of name (or of anything else) alone moves no decision.
type Change struct {
	Before, After *policyset.Policy
}

// NotProved is the After of a row whose comparison the analysis could not
// decide: the row's Words say why.
const NotProved = "NOT_PROVED"

// Row is a region of requests whose verdict differs between two policy
// sets.
type Row struct {
	// Type is the witness's activity type (ACTIVITY_TYPE_...); Types are
	// all the types that share the row, in catalogue order, and TypesWords
	// names them (a kind, a resource and action, or a list).
	Type       string
	Types      []string
	TypesWords string
	// Before and After are the verdicts (OUTCOME_ALLOW,
	// OUTCOME_REQUIRES_CONSENSUS, OUTCOME_DENY_EXPLICIT,
	// OUTCOME_DENY_IMPLICIT), as policy_decision returns them; After is
	// NotProved for a comparison the analysis could not decide.
	Before, After string
	// Region states the row's requests over the fields the changed
	// policies read ("eth.tx.value from 10 ETH to 20 ETH").
	Region string
	// Request is the witness: a request of the region with the fewest
	// approvers; Example is it as HCL that
	// provider::custody::policy_decision accepts as its request argument
	// as is (one line).
	Request policyset.Request
	Example string
	// Words say who and what the row concerns, for the reviewer: the
	// approvers, the types and the region.
	Words string
	// Proved: the witness decides Before and After (replayed through
	// policyset.Decide).
	Proved bool
	// Atoms are the region's comparisons with their values: a request is
	// in the row's region when each gives its value (symbolic.InRegion).
	Atoms []symbolic.AtomValue
}

// Widening tells whether the row gives more than before: anything to
// OUTCOME_ALLOW, or a deny to OUTCOME_REQUIRES_CONSENSUS.
func (r Row) Widening() bool { return widening(r.Before, r.After) }

// Report is what one change, or a whole before and after, does.
type Report struct {
	// Rows are the regions that move, widening first, then by activity
	// type; not-proved rows last.
	Rows []Row
	// More counts regions past those listed (up to 100 per verdict
	// pair and type).
	More int
	// Types is how many activity types were compared.
	Types int
	// allows says, by type, which requests the change newly allows
	// (newlyAllowed), for the controls on the same change.
	allows map[string]newlyAllowed
}

// Empty tells whether the report has nothing to show.
func (r Report) Empty() bool { return len(r.Rows) == 0 }

// Detail is the report as a warning's detail: at most max rows, each
// "  <TYPES>: <BEFORE> -> <AFTER>" then its words and its example indented
// (every line indented by at least two spaces, so that Terraform does not
// re-wrap it), "  and N more" when rows were left out, and a last line
// saying what was proved.
func (r Report) Detail(max int) string { return detail(r, max) }

// Control is a rule the organization declares: for the activity types
// listed, at most consensus ("consensus": no single non-root user may be
// allowed alone) or nothing at all ("denied": no set of non-root approvers
// may be allowed; only the root quorum).
type Control struct {
	Name          string
	ActivityTypes []string
	AtMost        string // AtMostConsensus or AtMostDenied
	// WarnNotProved: a control the analysis cannot decide is a warning,
	// not an error.
	WarnNotProved bool
	// WarnOutsideBreach: a control the organization breaks, as a plan
	// leaves it (not newly, by the plan), is a warning, not an error.
	WarnOutsideBreach bool
}

// The values of Control.AtMost.
const (
	AtMostConsensus = "consensus"
	AtMostDenied    = "denied"
)

// Breach is a control's verdict on a type: a request that breaks it, or
// the reason it could not be proved to hold.
type Breach struct {
	Control Control
	// Row: Before is the outcome before the plan, After in the most
	// permissive state; the plan newly lets it through.
	Row Row
	// NotProved is why the control could not be proved to hold for Type
	// (Row is then empty but for its Type).
	NotProved string
}

// Finding is a fact about a changed policy in its after version, proved.
type Finding struct {
	Kind   string // FindingNeverApplies, FindingDuplicate, FindingShadowed or FindingRedundant
	Detail string // one or more lines, each indented by two spaces
	// Deny: the finding is that a deny never applies, which the plan
	// refuses.
	Deny bool
}

// The kinds of Finding.
const (
	FindingNeverApplies = "never applies"
	FindingDuplicate    = "duplicate"
	FindingShadowed     = "shadowed"
	FindingRedundant    = "redundant"
)
