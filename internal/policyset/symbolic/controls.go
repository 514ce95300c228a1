package symbolic

import (
	"maps"
	"slices"
	"strings"

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
// non-root user (alone) or any non-root users: newly (the organization
// as it is does not) and already (it does). The organization's own
// versions of the counted policies are found by id and left out of the
// state.
func CheckControl(typ string, org []policyset.Policy, counted []Counted, alone bool, rootIDs []string) Breach {
	b := ControlNewly(typ, ControlState{Org: org, Counted: counted}, nil, nil, alone, rootIDs)
	if b.NotProved != "" {
		return b
	}
	already := ControlAlready(typ, org, alone, rootIDs, nil)
	b.Already = already.Already
	if b.Newly == nil {
		b.NotProved = already.NotProved
	}
	return b
}

// key names a set of guards: the same key, the same guards.
func (g guards) key() string {
	var b strings.Builder
	for _, path := range slices.Sorted(maps.Keys(g)) {
		vals := slices.Sorted(slices.Values(g[path]))
		b.WriteString(path + "\x00" + strings.Join(vals, "\x01") + "\x02")
	}
	return b.String()
}

// ControlNewly is the newly-broken half of CheckControl: a request of
// typ, approved as the control says, that the most permissive state
// allows and the organization as it is does not.
//
// With around, the change just counted, it asks only about the requests
// where one of around's versions applies, over the policies its guards
// admit (SliceByGuards). That is the whole question when it is asked as
// each change is counted: the state only grows more permissive, and a
// change alters it only where one of its versions applies, so the first
// change after which some request is newly allowed is asked about that
// request, and every earlier answer stands. With around, sliced is full
// sliced by around's versions (the caller's GuardIndex finds them); the
// witness is replayed over full.
func ControlNewly(typ string, full ControlState, sliced *ControlState, around *Counted, alone bool, rootIDs []string) Breach {
	org, counted := full.Org, full.Counted
	if around != nil {
		org, counted = sliced.Org, sliced.Counted
	}
	aroundVersions := around.Versions()
	if alone && skipNeedingOthers {
		// An allow that needs two approvers neither allows a request of
		// one nor keeps another from allowing it: for "allowed alone" it
		// counts for nothing, in either state. A change of such allows
		// alone moves no request's "allowed alone" (the first change
		// after which one is newly allowed is asked about it).
		if len(aroundVersions) > 0 && !slices.ContainsFunc(aroundVersions, countsAlone) {
			return Breach{}
		}
		org, counted = keepCountingAlone(org, counted)
	}
	if bd, ok := bandOf(canonical(aroundVersions)); ok {
		// Asked only where around's versions decide apart (band.go); the
		// witness is replayed over full.
		org, counted = bd.restrict(org, aroundVersions), bd.restrictCounted(counted, aroundVersions)
	}
	org, counted = canonical(org), canonicalCounted(counted)
	rest, _ := stateOf(org, counted)
	all := append([]policyset.Policy(nil), rest...)
	for _, c := range counted {
		for _, v := range []*policyset.Policy{c.Before, c.After} {
			if v != nil {
				all = append(all, *v)
			}
		}
	}
	// around's versions last, for their "applies" only.
	all = append(all, aroundVersions...)
	q := newQuestion(typ, all, rootIDs)
	q.e.c.budget = full.Budget
	defer q.e.c.release()
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
	where := litTrue // around applies
	if around != nil {
		var applies []lit
		for _, pl := range q.pols[k:] {
			applies = append(applies, pl.applies)
		}
		where = q.e.c.or(applies...)
	}
	allowNow := q.verdict(stateMembers)[client.OutcomeAllow]
	allowBefore := q.verdict(beforeMembers)[client.OutcomeAllow]
	who := litTrue
	if alone {
		who = q.alone()
	}
	assume := []lit{who, where, allowNow, -allowBefore}
	switch ans, model := q.e.c.solve(assume...); ans {
	case timedOut:
		return Breach{NotProved: q.e.c.notProved()}
	case sat:
		// The witness is replayed over the whole organization and every
		// counted change, not the slice.
		fullRest, fullBefore := stateOf(full.Org, full.Counted)
		req, ok, why := q.bestWitness(assume, model, func(r policyset.Request) bool {
			return permissiveVerdict(fullRest, full.Counted, r) == client.OutcomeAllow && policyset.Decide(fullBefore, r).Verdict != client.OutcomeAllow
		})
		if !ok {
			return Breach{NotProved: why}
		}
		return Breach{Newly: &req}
	}
	return Breach{}
}

// countsAlone: p can count for whether a request of one approver is
// allowed (it is not an allow that needs others).
func countsAlone(p policyset.Policy) bool {
	return p.Effect != client.EffectAllow || !needsOthers(p.Consensus)
}

// keepCountingAlone leaves out of org and of the counted changes' versions
// the allows that need others (mapCounted: a version left out is absent).
func keepCountingAlone(org []policyset.Policy, counted []Counted) ([]policyset.Policy, []Counted) {
	org = slices.DeleteFunc(slices.Clone(org), func(p policyset.Policy) bool { return !countsAlone(p) })
	return org, mapCounted(counted, func(p policyset.Policy) (policyset.Policy, bool) { return p, countsAlone(p) })
}

// ControlState is what a control is judged on: the organization's
// policies that can count for a type, and the changes counted into the
// most permissive state.
type ControlState struct {
	Org     []policyset.Policy
	Counted []Counted
	// Budget bounds the question's searches with others (nil:
	// QueryGuard alone).
	Budget *Budget
}

// Versions are the change's versions that exist; none for a nil change.
func (c *Counted) Versions() []policyset.Policy {
	if c == nil {
		return nil
	}
	var out []policyset.Policy
	for _, v := range []*policyset.Policy{c.Before, c.After} {
		if v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// stateOf splits the organization into the policies no counted change
// touches (rest) and the organization as it is (before: rest and the
// counted changes' prior versions).
func stateOf(org []policyset.Policy, counted []Counted) (rest, before []policyset.Policy) {
	countedIDs := map[string]bool{}
	for _, c := range counted {
		for _, v := range []*policyset.Policy{c.Before, c.After} {
			if v != nil {
				countedIDs[v.ID] = true
			}
		}
	}
	for _, p := range org {
		if !countedIDs[p.ID] {
			rest = append(rest, p)
		}
	}
	before = append(before, rest...)
	for _, c := range counted {
		if c.Before != nil {
			before = append(before, *c.Before)
		}
	}
	return rest, before
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
