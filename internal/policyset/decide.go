package policyset

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// OutcomeNotApplicable is the outcome of a policy that does not apply to a
// request: its condition does not hold, or it is a deny whose consensus
// does not hold. The service leaves such policies out of its evaluations;
// the decision lists every policy, so it needs a word for them.
const OutcomeNotApplicable = "OUTCOME_NOT_APPLICABLE"

// Policy is what a decision reads of one policy. An empty expression is
// absent, and imposes nothing.
type Policy struct {
	ID, Name, Effect           string
	Condition, Consensus, Time string
}

// DecisionKey names the fields that decide (effect, condition, consensus,
// time): two policies with the same key decide every request alike,
// whatever their ids and names.
func (p Policy) DecisionKey() string {
	return p.Effect + "\x00" + p.Condition + "\x00" + p.Consensus + "\x00" + p.Time
}

// FromClient is the decision's view of a policy the service holds.
func FromClient(p *client.Policy) Policy {
	return Policy{ID: p.PolicyID, Name: p.PolicyName, Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus, Time: p.Time}
}

// Decision is what a policy set decides for one request: its verdict and
// what led to it.
type Decision struct {
	// Verdict is what the set decides: client.OutcomeAllow,
	// OutcomeDenyExplicit, OutcomeDenyImplicit (which no single policy
	// gives) or OutcomeRequiresConsensus.
	Verdict string
	// DecidedBy are the indexes of the policies that decided it: the
	// denying policies of an explicit deny, the allowing ones of an allow,
	// the ones requiring consensus of a consensus verdict. None for an
	// implicit deny, and none when the root quorum decides.
	DecidedBy []int
	// ByRootQuorum: the root quorum allowed the activity, or it waits for
	// the root quorum (a root user approved, nothing else allows it).
	ByRootQuorum bool
	// RootQuorumOnly: only the root quorum governs this activity type, so
	// the policies had no say.
	RootQuorumOnly bool
	// Policies holds each policy's outcome, in the order given.
	Policies []PolicyOutcome
}

// PolicyOutcome is one policy's outcome for the request.
type PolicyOutcome struct {
	// Outcome is client.OutcomeAllow, OutcomeDenyExplicit,
	// OutcomeRequiresConsensus, OutcomeTimeInactive, OutcomeError or
	// OutcomeNotApplicable.
	Outcome string
	// Err is why the outcome is an error: a *policylang.EvalError, or a
	// *policylang.Diagnostic for an expression the language refuses; Field
	// is the field whose expression gave it.
	Err   error
	Field policylang.Field
}

// Decide evaluates every policy against the request and decides it in the
// documented order (see the package documentation).
func Decide(policies []Policy, req Request) Decision {
	return DecideWith(NewEvaluator(req), policies, req)
}

// DecideWith is Decide with e, an evaluator of req: a caller that decides
// several sets for one request (a before and an after) reads the request,
// and each expression the sets share, once.
func DecideWith(e *Evaluator, policies []Policy, req Request) Decision {
	outcomes := make([]PolicyOutcome, len(policies))
	for i, p := range policies {
		outcomes[i] = e.Outcome(p)
	}
	return DecideOutcomes(outcomes, req)
}

// DecideOutcomes is the decision of a set whose policies gave these
// outcomes for req, in order. Decide is Evaluator.Outcome for each policy
// and then DecideOutcomes.
func DecideOutcomes(outcomes []PolicyOutcome, req Request) Decision {
	var t Tally
	for _, r := range outcomes {
		t.Add(r, 1)
	}
	d := DecideTally(t, req)
	d.Policies = outcomes
	if d.ByRootQuorum || d.Verdict == client.OutcomeDenyImplicit {
		return d
	}
	for i, r := range outcomes {
		if r.Outcome == d.Verdict {
			d.DecidedBy = append(d.DecidedBy, i)
		}
	}
	return d
}

// Tally counts the policies whose outcomes can decide the verdict: it is
// all a decision reads of them. A caller that decides many sets that differ in a
// few policies (the lockout guard) keeps a tally, adds and takes away the
// outcomes that change, and decides with DecideTally.
type Tally struct{ Denying, Allowing, RequiringConsensus int }

// Add counts r's outcome n times (n = -1 takes it away).
func (t *Tally) Add(r PolicyOutcome, n int) {
	switch r.Outcome {
	case client.OutcomeDenyExplicit:
		t.Denying += n
	case client.OutcomeAllow:
		t.Allowing += n
	case client.OutcomeRequiresConsensus:
		t.RequiringConsensus += n
	}
}

// DecideTally decides req in the documented order from a tally of the
// policies' outcomes. The decision names no policies (DecidedBy and
// Policies are empty): DecideOutcomes does.
func DecideTally(t Tally, req Request) Decision {
	var d Decision
	info, _ := policylang.LookupActivity(req.Type)
	d.RootQuorumOnly = info.RootQuorumOnly
	switch {
	case req.quorumReached():
		d.Verdict, d.ByRootQuorum = client.OutcomeAllow, true
	case info.RootQuorumOnly:
		d.implicitDeny(req)
	case t.Denying > 0:
		d.Verdict = client.OutcomeDenyExplicit
	case t.Allowing > 0:
		d.Verdict = client.OutcomeAllow
	case t.RequiringConsensus > 0:
		d.Verdict = client.OutcomeRequiresConsensus
	default:
		d.implicitDeny(req)
	}
	return d
}

// implicitDeny: nothing allows the activity. While a root user has
// approved it, it waits, since the root quorum may still allow it.
func (d *Decision) implicitDeny(req Request) {
	if req.rootApprovals() > 0 {
		d.Verdict, d.ByRootQuorum = client.OutcomeRequiresConsensus, true
		return
	}
	d.Verdict = client.OutcomeDenyImplicit
}

// Evaluator gives policies' outcomes for one request. It is not safe for
// concurrent use.
type Evaluator struct {
	env policylang.Env
	// An expression's value depends only on its text and the request:
	// policies that share one are evaluated once.
	memo map[exprKey]exprResult
}

// NewEvaluator prepares the request's view for evaluating policies.
func NewEvaluator(req Request) *Evaluator {
	return &Evaluator{env: req.env(), memo: map[exprKey]exprResult{}}
}

// Outcome evaluates a policy's condition, consensus and time. All three
// are evaluated whatever the others give, and an error in any makes the
// outcome an error, which neither allows nor denies.
func (e *Evaluator) Outcome(p Policy) PolicyOutcome {
	cond := e.eval(policylang.FieldCondition, p.Condition)
	cons := e.eval(policylang.FieldConsensus, p.Consensus)
	active := e.eval(policylang.FieldTime, p.Time)
	for _, r := range []exprResult{cond, cons, active} {
		if r.err != nil {
			return PolicyOutcome{Outcome: client.OutcomeError, Err: r.err, Field: r.field}
		}
	}
	switch {
	case !cond.holds:
		return PolicyOutcome{Outcome: OutcomeNotApplicable}
	case !active.holds:
		return PolicyOutcome{Outcome: client.OutcomeTimeInactive} // out of its time: not considered, not a deny
	case p.Effect == client.EffectDeny && cons.holds:
		return PolicyOutcome{Outcome: client.OutcomeDenyExplicit}
	case p.Effect == client.EffectDeny:
		return PolicyOutcome{Outcome: OutcomeNotApplicable} // a deny whose consensus does not hold does not apply
	case cons.holds:
		return PolicyOutcome{Outcome: client.OutcomeAllow}
	}
	return PolicyOutcome{Outcome: client.OutcomeRequiresConsensus}
}

type exprResult struct {
	holds bool
	err   error
	field policylang.Field
}

// eval evaluates one expression; an absent (empty) one holds.
func (e *Evaluator) eval(f policylang.Field, expr string) exprResult {
	if expr == "" {
		return exprResult{holds: true}
	}
	key := exprKey{f, expr}
	if r, ok := e.memo[key]; ok {
		return r
	}
	r := exprResult{field: f}
	if prog, d := Compile(f, expr); d != nil {
		r.err = d
	} else {
		r.holds, r.err = prog.Eval(e.env)
	}
	e.memo[key] = r
	return r
}
