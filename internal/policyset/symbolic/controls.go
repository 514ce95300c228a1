package symbolic

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Counted is a planned change counted into the most permissive state: a
// nil version is absent (a create's before, a delete's after).
type Counted struct {
	Before, After *policyset.Policy
}

// Breach is the answer to a control: a request (approvers all non-root
// users; the requester alone for at most consensus) that the most
// permissive state allows.
type Breach struct {
	// Newly: the state allows a request that the organization as it is
	// does not (the plan breaks the control). Already: the organization
	// allows one as it is (broken before the plan). Each is nil when
	// proved absent.
	Newly, Already *policyset.Request
	// NotProved says what stopped the proof; the control is then neither
	// proved to hold nor shown broken.
	NotProved string
}

// CheckControl asks whether the most permissive state (the
// organization's policies, each counted change in whichever version allows
// more, per request) allows a request of typ whose approvers are one
// non-root user (alone) or any non-root users. The organization's own
// versions of the counted policies are found by id and left out of the
// state.
func CheckControl(typ string, org []policyset.Policy, counted []Counted, alone bool, rootIDs []string) Breach {
	org, counted = canonical(org), canonicalCounted(counted)
	countedIDs := map[string]bool{}
	for _, c := range counted {
		for _, v := range []*policyset.Policy{c.Before, c.After} {
			if v != nil {
				countedIDs[v.ID] = true
			}
		}
	}
	var rest []policyset.Policy
	for _, p := range org {
		if !countedIDs[p.ID] {
			rest = append(rest, p)
		}
	}
	var before []policyset.Policy // the organization as it is
	before = append(before, rest...)
	all := append([]policyset.Policy(nil), rest...)
	for _, c := range counted {
		for _, v := range []*policyset.Policy{c.Before, c.After} {
			if v != nil {
				all = append(all, *v)
			}
		}
		if c.Before != nil {
			before = append(before, *c.Before)
		}
	}
	q := newQuestion(typ, all, rootIDs)
	absent := &polLits{deny: litFalse, allow: litFalse, cons: litFalse, applies: litFalse, err: litFalse}
	var stateMembers, beforeMembers []member
	for i := range rest {
		m := member{a: q.pols[i]}
		stateMembers, beforeMembers = append(stateMembers, m), append(beforeMembers, m)
	}
	k := len(rest)
	for _, c := range counted {
		pair := member{a: absent, b: absent}
		if c.Before != nil {
			pair.a = q.pols[k]
			beforeMembers = append(beforeMembers, member{a: q.pols[k]})
			k++
		}
		if c.After != nil {
			pair.b = q.pols[k]
			k++
		}
		stateMembers = append(stateMembers, pair)
	}
	allowNow := q.verdict(stateMembers)[client.OutcomeAllow]
	allowBefore := q.verdict(beforeMembers)[client.OutcomeAllow]
	who := litTrue
	if alone {
		who = q.alone()
	}
	var b Breach
	replayState := func(req policyset.Request) bool { return permissiveVerdict(rest, counted, req) == client.OutcomeAllow }
	replayBefore := func(req policyset.Request) bool { return policyset.Decide(before, req).Verdict == client.OutcomeAllow }
	switch ans, model := q.e.c.solve(who, allowNow, -allowBefore); ans {
	case timedOut:
		return Breach{NotProved: "the question ran past its time limit"}
	case sat:
		req, ok, why := q.bestWitness([]lit{who, allowNow, -allowBefore}, model, func(r policyset.Request) bool {
			return replayState(r) && !replayBefore(r)
		})
		if !ok {
			return Breach{NotProved: why}
		}
		b.Newly = &req
	}
	switch ans, model := q.e.c.solve(who, allowBefore); ans {
	case timedOut:
		b.NotProved = "the question ran past its time limit"
	case sat:
		req, ok, why := q.bestWitness([]lit{who, allowBefore}, model, replayBefore)
		if !ok {
			if b.Newly == nil {
				b.NotProved = why
			}
			return b
		}
		b.Already = &req
	}
	return b
}

// permissiveVerdict decides a request in the most permissive state, as
// policyset decides: each counted change's outcome is the more
// permissive of its versions' (an absent version counts nothing).
func permissiveVerdict(rest []policyset.Policy, counted []Counted, req policyset.Request) string {
	ev := policyset.NewEvaluator(req)
	var t policyset.Tally
	for _, p := range rest {
		t.Add(ev.Outcome(p), 1)
	}
	na := policyset.PolicyOutcome{Outcome: policyset.OutcomeNotApplicable}
	for _, c := range counted {
		a, b := na, na
		if c.Before != nil {
			a = ev.Outcome(*c.Before)
		}
		if c.After != nil {
			b = ev.Outcome(*c.After)
		}
		if permissiveness(b.Outcome) > permissiveness(a.Outcome) {
			a = b
		}
		t.Add(a, 1)
	}
	return policyset.DecideTally(t, req).Verdict
}

// permissiveness: allow > consensus > not applicable, error,
// time-inactive > deny.
func permissiveness(outcome string) int {
	switch outcome {
	case client.OutcomeAllow:
		return 3
	case client.OutcomeRequiresConsensus:
		return 2
	case client.OutcomeDenyExplicit:
		return 0
	}
	return 1
}
