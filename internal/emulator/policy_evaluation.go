package emulator

import (
	"maps"
	"sync"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// Policy evaluation outcomes (spec section 3) that the emulator produces.
const (
	outcomeAllow             = "OUTCOME_ALLOW"
	outcomeDenyExplicit      = "OUTCOME_DENY_EXPLICIT"
	outcomeRequiresConsensus = "OUTCOME_REQUIRES_CONSENSUS"
	outcomeTimeInactive      = "OUTCOME_TIME_INACTIVE"
	outcomeError             = "OUTCOME_ERROR"
)

// verdict is what the policies make of an activity after a vote.
type verdict int

const (
	verdictAllow     verdict = iota // run it
	verdictConsensus                // wait for more approvals
	verdictDeny                     // fail it
)

// evaluation is every policy's outcome for one vote, and the verdict they
// give in the documented order (reference §1): a quorum of root users
// allows; else any applicable EFFECT_DENY denies (explicit deny); else an
// applicable EFFECT_ALLOW whose consensus holds allows, or one whose
// consensus does not hold yet waits for approvals; else nothing allows it
// (implicit deny).
type evaluation struct {
	outcomes []client.PolicyEvaluation
	verdict  verdict
	failure  *client.Status // why a denied activity failed
}

// evaluate runs every policy of the organization against rec as it stands,
// with the approvals cast so far.
func (s *Server) evaluate(rec *activityRecord) evaluation {
	approvals, rootApprovals := s.approvers(rec)
	env := s.requestEnv(rec)
	maps.Copy(env, approvals)
	ev := evaluation{outcomes: []client.PolicyEvaluation{}}
	var denied *client.Policy
	allowed, waiting := false, false
	// An expression's value depends only on its text and env: policies that
	// share one are evaluated once per vote.
	memo := map[compileKey]exprResult{}
	for _, p := range s.policiesByID() {
		outcome := policyOutcome(p, env, memo)
		switch outcome {
		case "":
			continue // the policy does not apply, and is left out
		case outcomeDenyExplicit:
			if denied == nil {
				denied = p
			}
		case outcomeAllow:
			allowed = true
		case outcomeRequiresConsensus:
			waiting = true
		}
		ev.outcomes = append(ev.outcomes, client.PolicyEvaluation{PolicyID: p.PolicyID, Outcome: outcome})
	}
	documented, _ := policylang.LookupActivity(rec.Activity.Type)
	switch {
	case rootApprovals >= s.st.RootQuorum:
		ev.verdict = verdictAllow
	case documented.RootQuorumOnly:
		// Policies have no say: only the root quorum can allow it.
		ev.verdict, ev.failure = implicitDeny(rec, rootApprovals, "only the root quorum can approve "+rec.Activity.Type)
	case denied != nil:
		ev.verdict = verdictDeny
		ev.failure = failure(client.CodePermissionDenied, "activity %s is denied by policy %s (%q)", rec.Activity.ID, denied.PolicyID, denied.PolicyName)
	case allowed:
		ev.verdict = verdictAllow
	case waiting:
		ev.verdict = verdictConsensus
	default:
		ev.verdict, ev.failure = implicitDeny(rec, rootApprovals, "no policy allows it")
	}
	return ev
}

// implicitDeny: an activity nothing allows waits while a root user has
// approved it, since the root quorum may still allow it; a non-root
// user's activity is denied.
func implicitDeny(rec *activityRecord, rootApprovals int, why string) (verdict, *client.Status) {
	if rootApprovals > 0 {
		return verdictConsensus, nil
	}
	return verdictDeny, failure(client.CodePermissionDenied, "activity %s is implicitly denied: %s", rec.Activity.ID, why)
}

// policyOutcome evaluates a policy's condition, consensus and time. All
// three are evaluated whatever the others give, and an error in any makes
// the outcome an error, which neither allows nor denies. "" means the
// policy does not apply.
func policyOutcome(p *client.Policy, env policylang.Env, memo map[compileKey]exprResult) string {
	cond := evalCached(policylang.FieldCondition, p.Condition, env, memo)
	cons := evalCached(policylang.FieldConsensus, p.Consensus, env, memo)
	active := evalCached(policylang.FieldTime, p.Time, env, memo)
	switch {
	case cond.err != nil || cons.err != nil || active.err != nil:
		return outcomeError
	case !cond.holds:
		return ""
	case !active.holds:
		return outcomeTimeInactive // out of its time: not considered, not a deny
	case p.Effect == client.EffectDeny && cons.holds:
		return outcomeDenyExplicit
	case p.Effect == client.EffectDeny:
		return "" // a deny whose consensus does not hold does not apply
	case cons.holds:
		return outcomeAllow
	}
	return outcomeRequiresConsensus
}

type compileKey struct {
	field policylang.Field
	expr  string
}

type exprResult struct {
	holds bool
	err   error
}

// evalCached evaluates one expression; an absent (empty) one holds.
func evalCached(f policylang.Field, expr string, env policylang.Env, memo map[compileKey]exprResult) exprResult {
	if expr == "" {
		return exprResult{holds: true}
	}
	key := compileKey{f, expr}
	if r, ok := memo[key]; ok {
		return r
	}
	var r exprResult
	if prog, d := compile(f, expr); d != nil {
		r.err = d
	} else {
		r.holds, r.err = prog.Eval(env)
	}
	memo[key] = r
	return r
}

// programs caches compiled expressions by field and text: every vote
// evaluates every policy, and compiling costs ten times more than running.
// Programs are safe for concurrent use.
var programs sync.Map // compileKey → compiled

type compiled struct {
	prog *policylang.Program
	err  *policylang.Diagnostic
}

// compile checks an expression as the service does when a policy is
// created: an error refuses it (the first is returned); warnings do not.
func compile(f policylang.Field, expr string) (*policylang.Program, *policylang.Diagnostic) {
	key := compileKey{f, expr}
	if c, ok := programs.Load(key); ok {
		c := c.(compiled) //nolint:forcetypeassert // only compile stores, and only compiled
		return c.prog, c.err
	}
	prog, ds := policylang.Compile(expr, f)
	c := compiled{prog: prog, err: ds.FirstError()}
	programs.Store(key, c)
	return c.prog, c.err
}
