package emulator

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/google/cel-go/cel"
)

// Policy evaluation outcomes (spec section 3) that the emulator produces.
const (
	outcomeAllow        = "OUTCOME_ALLOW"
	outcomeDenyExplicit = "OUTCOME_DENY_EXPLICIT"
	outcomeError        = "OUTCOME_ERROR"
)

// conditionCostLimit stops a condition that would run away (nested
// comprehensions) while the server's lock is held.
const conditionCostLimit = 100_000

// evalEnv declares what a condition may name: activity.{type, resource,
// action} and user.id. Any other variable is a compile error, which is an
// OUTCOME_ERROR, so a policy written for data the emulator does not model
// shows up instead of silently never applying.
var evalEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("activity", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("user", cel.MapType(cel.StringType, cel.DynType)),
	)
})

// evaluatePolicies evaluates every stored policy's condition (policies by
// id) for one vote on rec, cast by who. A policy whose condition is false
// did not apply and is left out; an empty condition applies to every
// activity. The outcomes are recorded for get_policy_evaluations only: the
// emulator's voters are root users, and root users are governed by the root
// quorum, not blocked by policy outcomes (as in the service). Consensus and
// time expressions are not evaluated.
func (s *Server) evaluatePolicies(rec *activityRecord, who *caller) []client.PolicyEvaluation {
	resource, action := resourceAction(rec.Activity.Type)
	vars := map[string]any{
		"activity": map[string]any{"type": rec.Activity.Type, "resource": resource, "action": action},
		"user":     map[string]any{"id": who.UserID},
	}
	out := []client.PolicyEvaluation{}
	// A condition's value depends only on its text and vars: policies that
	// share a condition are evaluated once per vote.
	type holds struct {
		applies bool
		err     error
	}
	seen := map[string]holds{}
	for _, p := range s.sortedPolicies(policyByID) {
		outcome := outcomeAllow
		h, ok := seen[p.Condition]
		if !ok {
			h.applies, h.err = conditionHolds(p.Condition, vars)
			seen[p.Condition] = h
		}
		applies, err := h.applies, h.err
		switch {
		case err != nil:
			outcome = outcomeError
		case !applies:
			continue
		case p.Effect == client.EffectDeny:
			outcome = outcomeDenyExplicit
		}
		out = append(out, client.PolicyEvaluation{PolicyID: p.PolicyID, Outcome: outcome})
	}
	return out
}

// conditionHolds runs one condition; a result that is not a bool is an
// error.
func conditionHolds(expr string, vars map[string]any) (bool, error) {
	if strings.TrimSpace(expr) == "" {
		return true, nil
	}
	prg, err := compileCondition(expr)
	if err != nil {
		return false, err
	}
	val, _, err := prg.Eval(vars)
	if err != nil {
		return false, err
	}
	b, ok := val.Value().(bool)
	if !ok {
		return false, fmt.Errorf("condition is %s, not a bool", val.Type())
	}
	return b, nil
}

// conditionCache caches compileCondition by expression text: every vote
// evaluates every policy, and compiling costs about 100 µs where running
// costs a few. Programs are safe for concurrent use.
var conditionCache sync.Map // string → compiledCondition

type compiledCondition struct {
	prg cel.Program
	err error
}

// compileCondition parses and type-checks a condition against evalEnv.
func compileCondition(expr string) (cel.Program, error) {
	if v, ok := conditionCache.Load(expr); ok {
		c, ok := v.(compiledCondition)
		if !ok { // only compileCondition stores, and only compiledCondition
			panic(fmt.Sprintf("conditionCache holds %T for %q", v, expr))
		}
		return c.prg, c.err
	}
	var c compiledCondition
	env, err := evalEnv()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		c.err = iss.Err()
	} else {
		c.prg, c.err = env.Program(ast, cel.CostLimit(conditionCostLimit))
	}
	conditionCache.Store(expr, c)
	return c.prg, c.err
}

var versionSuffix = regexp.MustCompile(`_V[0-9]+$`)

// resourceAction derives activity.resource and activity.action from the
// activity type, which names a verb and an object:
// ACTIVITY_TYPE_<VERB>_<OBJECT>[_V<n>].
//   - action is the verb, with SET read as UPDATE and REMOVE as DELETE
//     (set_ip_allowlist changes an existing setting, remove deletes it);
//   - resource is the object in the singular (POLICIES → POLICY,
//     PRIVATE_KEY_TAGS → PRIVATE_KEY_TAG), except that signing acts on the
//     PRIVATE_KEY that signs and a rename (..._NAME) acts on the named
//     object (UPDATE_ORGANIZATION_NAME → ORGANIZATION).
//
// So ACTIVITY_TYPE_CREATE_POLICIES is CREATE on POLICY and
// ACTIVITY_TYPE_SIGN_TRANSACTION_V2 is SIGN on PRIVATE_KEY.
func resourceAction(typ string) (resource, action string) {
	name := versionSuffix.ReplaceAllString(strings.TrimPrefix(typ, "ACTIVITY_TYPE_"), "")
	verb, object, _ := strings.Cut(name, "_")
	switch verb {
	case "SET":
		action = "UPDATE"
	case "REMOVE":
		action = "DELETE"
	default:
		action = verb
	}
	switch {
	case verb == "SIGN":
		return "PRIVATE_KEY", action
	case strings.HasSuffix(object, "_NAME"):
		object = strings.TrimSuffix(object, "_NAME")
	case strings.HasSuffix(object, "IES"):
		object = strings.TrimSuffix(object, "IES") + "Y"
	case strings.HasSuffix(object, "S") && !strings.HasSuffix(object, "SS"):
		object = strings.TrimSuffix(object, "S")
	}
	return object, action
}
