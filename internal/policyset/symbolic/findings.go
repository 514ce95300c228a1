package symbolic

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Findings are facts about one policy, each a proof over every request of
// every type it can apply to: an answer is said only when proved, and a
// question the analysis cannot decide says nothing.

// NeverApplies tells whether p's outcome is not-applicable, an error or
// time-inactive for every request. byCatalogue is true when that rests on
// the catalogue: p reads a field the catalogue does not know, which the
// engine evaluates as an error (the service may know it). When p applies,
// applying is a request it was shown to apply to, if one was built.
func NeverApplies(p policyset.Policy, rootIDs []string, b *Budget) (never, byCatalogue bool, applying *policyset.Request) {
	for _, strict := range []bool{false, true} {
		applies := false
		for _, typ := range MayApply(p) {
			q := newQuestionStrict(typ, []policyset.Policy{p}, rootIDs, strict)
			q.e.c.budget = b
			ans, model := q.e.c.solve(q.pols[0].applies)
			if ans == timedOut {
				return false, false, nil
			}
			if ans == sat {
				if req, err := q.witness(model); err == nil && DisproveAt(p, nil, req).Applies {
					return false, false, &req // shown to apply
				}
				applies = true
				break
			}
		}
		if !applies {
			return true, strict, nil
		}
	}
	return false, false, nil
}

// The findings are universal claims, so one concrete request decided by
// the engine disproves each: the plan's own witnesses usually do, and
// then no question is asked.

// Disproof is what one request shows of p's findings, decided by the
// engine (one evaluation of each policy).
type Disproof struct {
	// Applies: p's outcome is an allow, a consensus or a deny, so p does
	// not "never apply".
	Applies bool
	// NotShadowed: p is an allow that allows or waits for consensus, and
	// none of the others denies explicitly.
	NotShadowed bool
	// NotRedundant: the others with p decide otherwise than the others
	// alone. others may be sliced by p's guards (SliceByGuards): where p
	// counts, what the guards leave out counts for nothing, so a
	// difference on the slice is one on the whole set.
	NotRedundant bool
}

// DisproveAt decides req under p and others (which leave p out).
func DisproveAt(p policyset.Policy, others []policyset.Policy, req policyset.Request) Disproof {
	ev := policyset.NewEvaluator(req)
	mine := ev.Outcome(p)
	outcomes := make([]policyset.PolicyOutcome, len(others), len(others)+1)
	denied := false
	for i, o := range others {
		outcomes[i] = ev.Outcome(o)
		denied = denied || (o.Effect == client.EffectDeny && outcomes[i].Outcome == client.OutcomeDenyExplicit)
	}
	var d Disproof
	switch mine.Outcome {
	case client.OutcomeAllow, client.OutcomeRequiresConsensus:
		d.Applies, d.NotShadowed = true, p.Effect == client.EffectAllow && !denied
	case client.OutcomeDenyExplicit:
		d.Applies = true
	}
	d.NotRedundant = policyset.DecideOutcomes(append(outcomes, mine), req).Verdict != policyset.DecideOutcomes(outcomes, req).Verdict
	return d
}

// Shadowed tells whether an allow is explicitly denied wherever it would
// allow or wait for consensus, by the deny policies of others; denies are
// those that deny some request p would count for. False where p never
// counts (that is NeverApplies) or the analysis cannot decide.
func Shadowed(p policyset.Policy, others []policyset.Policy, rootIDs []string, b *Budget) (shadowed bool, denies []string) {
	if p.Effect != client.EffectAllow {
		return false, nil
	}
	var ds []policyset.Policy
	for _, o := range others {
		if o.Effect == client.EffectDeny {
			ds = append(ds, o)
		}
	}
	ds = canonical(SliceByGuards(ds, []policyset.Policy{p}))
	counts := false
	for _, typ := range MayApply(p) {
		ds := ofType(ds, typ)
		q := newQuestion(typ, append([]policyset.Policy{p}, ds...), rootIDs)
		q.e.c.budget = b
		pl := q.pols[0]
		grants := q.e.c.or(pl.allow, pl.cons)
		var denying []lit
		for _, d := range q.pols[1:] {
			denying = append(denying, d.deny)
		}
		switch ans, _ := q.e.c.solve(grants); ans {
		case timedOut:
			return false, nil
		case unsat:
			continue
		}
		counts = true
		if ans, _ := q.e.c.solve(grants, -q.e.c.or(denying...)); ans != unsat {
			return false, nil
		}
		for i, d := range q.pols[1:] {
			if ans, _ := q.e.c.solve(grants, d.deny); ans == sat {
				denies = append(denies, policyName(ds[i]))
			}
		}
	}
	slices.Sort(denies)
	return counts, slices.Compact(denies)
}

// Redundant tells whether removing p from set (which holds it, found by
// id) changes no request's verdict, of any type p can apply to.
func Redundant(p policyset.Policy, set []policyset.Policy, rootIDs []string, b *Budget) bool {
	var without []policyset.Policy
	for _, o := range SliceByGuards(set, []policyset.Policy{p}) {
		if o.ID != p.ID {
			without = append(without, o)
		}
	}
	bd, banded := bandOf([]policyset.Policy{p})
	for _, typ := range MayApply(p) {
		others := ofType(without, typ)
		if banded {
			// Removing p moves verdicts only where p applies (band.go).
			others = bd.restrict(others, nil)
		}
		ms, guarded := moves(b, typ, append(slices.Clone(others), p), others, rootIDs)
		if guarded || len(ms) > 0 {
			return false
		}
	}
	return true
}

// ofType keeps the policies that can count for requests of typ.
func ofType(ps []policyset.Policy, typ string) []policyset.Policy {
	var out []policyset.Policy
	for _, p := range ps {
		if slices.Contains(MayApply(p), typ) {
			out = append(out, p)
		}
	}
	return out
}
