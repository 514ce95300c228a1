package review

import (
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Controls are judged in the most permissive state an apply can pass
// through: each counted change, per request, in whichever of its versions
// allows more. That state only gets more permissive as changes arrive, so
// the verdict does not depend on the order Terraform plans in (the mirror
// of the lockout guard's worst state); which change carries a breach is
// the first that tips it.

// counted is a change counted into the most permissive state.
type counted struct {
	before, after *policyset.Policy
	types         map[string]bool
}

// CheckControls counts c into the most permissive state (each changed
// policy, per request, in whichever of its versions allows more) and
// returns the breaches of controls: those c newly lets through (Already
// false), and those that broke the control before the plan (Already
// true), each request once per command. Requesters and approvers are
// never root users.
func (o *Org) CheckControls(c Change, controls []Control) []Breach {
	if decisionEqual(c) {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.lookup(c.Before)
	ch := counted{before: before, after: c.After, types: map[string]bool{}}
	types := o.typesOf(before, c.After)
	for _, t := range types {
		ch.types[t] = true
	}
	// A change checked twice (a plan and its apply in one Org) counts
	// once: counting it again would take its old outcome out twice.
	key := policyKey(before) + "\x02" + policyKey(c.After)
	fresh := !o.countedKeys[key]
	if fresh {
		o.countedKeys[key] = true
		o.counted = append(o.counted, ch)
		o.indexCounted(len(o.counted) - 1)
	}
	var out []Breach
	judgedWith := controlsKey(controls)
	for _, typ := range types {
		// A type no control names needs no most permissive state yet: a
		// request's state counts every change when first asked for.
		on := controlsOn(controls, typ)
		if len(on) == 0 {
			continue
		}
		ct := o.controlSample(typ, before, c.After)
		if ct.key != judgedWith {
			ct.key, ct.judged = judgedWith, 0
		}
		// Judged already with these controls, a request can newly break
		// one only when this change moves its most permissive tally,
		// which it can only where one of its versions may count.
		var todo []int
		if fresh {
			todo = o.positions(ct.idx, nil, before, c.After)
			todo = todo[:sortSearch(todo, ct.judged)]
		}
		for i := ct.judged; i < len(ct.idx.items); i++ {
			todo = append(todo, i)
		}
		ct.judged = len(ct.idx.items)
		for _, i := range todo {
			s := ct.idx.items[i]
			st := o.state(s)
			o.countInto(st, ch, fresh)
			for _, ctl := range on {
				if b, ok := o.breach(ctl, s, st); ok {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// countInto brings the request's most permissive tally up to date: on
// first use every change counted so far, after that the newest one.
func (o *Org) countInto(st *reqState, newest counted, fresh bool) {
	if st.permReady {
		if fresh {
			st.perm = permissive(st, st.perm, newest)
		}
		return
	}
	st.perm, _ = o.baseTally(st)
	for _, k := range o.countedFor(st.req) {
		if ch := o.counted[k]; ch.types[st.req.Type] {
			st.perm = permissive(st, st.perm, ch)
		}
	}
	st.permReady = true
}

// permissive swaps a change's old outcome for the more permissive of its
// two versions.
func permissive(st *reqState, t policyset.Tally, ch counted) policyset.Tally {
	old, now := outcome(st, ch.before), outcome(st, ch.after)
	t.Add(old, -1)
	if permissiveness(now.Outcome) > permissiveness(old.Outcome) {
		old = now
	}
	t.Add(old, 1)
	return t
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

// controlsOn are the controls that name activity type typ.
func controlsOn(controls []Control, typ string) []Control {
	var on []Control
	for _, ctl := range controls {
		if slices.Contains(ctl.ActivityTypes, typ) {
			on = append(on, ctl)
		}
	}
	return on
}

// breach tells whether the request, of a type the control names, breaks
// it in the most permissive state, the first time it does in this Org.
func (o *Org) breach(ctl Control, s sampled, st *reqState) (Breach, bool) {
	breaks := func(outcome string) bool {
		return outcome == client.OutcomeAllow && (ctl.AtMost == AtMostDenied || len(s.req.Approvers) == 1)
	}
	now := policyset.DecideTally(st.perm, s.req).Verdict
	_, was := o.baseTally(st)
	if !breaks(now) {
		return Breach{}, false
	}
	key := ctl.Name + "\x00" + s.example // built only for a request that breaks it
	if o.reported[key] {
		return Breach{}, false
	}
	o.reported[key] = true
	return Breach{Control: ctl, Row: row(s, was, now), Already: breaks(was)}, true
}

// policyKey identifies a policy version by id and decision fields.
func policyKey(p *policyset.Policy) string {
	if p == nil {
		return ""
	}
	return p.ID + "\x00" + p.Effect + "\x00" + p.Condition + "\x00" + p.Consensus + "\x00" + p.Time
}

// ctlType is the requests controls judge for one type: the type's
// sample with the requests every change checked so far added, indexed.
type ctlType struct {
	idx    *reqIndex
	key    string // the controls the first judged requests were judged with
	judged int    // requests judged, with every change counted so far
}

// controlSample is the type's sample with the requests every change
// checked so far added: a request one change's values made is judged
// again when a later change moves its type, so the breaches found over a
// command do not depend on the order the changes arrive in.
func (o *Org) controlSample(typ string, extra ...*policyset.Policy) *ctlType {
	v := o.sample(typ, extra...)
	ct := o.ctl[typ]
	if ct == nil {
		ct = &ctlType{idx: newReqIndex(slices.Clip(v.base.sampled))}
		o.ctl[typ] = ct
		o.ctlSeen[typ] = map[string]bool{}
	}
	for _, s := range v.extra {
		if !o.ctlSeen[typ][s.example] {
			o.ctlSeen[typ][s.example] = true
			ct.idx.add(s)
		}
	}
	return ct
}

// controlsKey identifies a list of controls: judged with others, every
// request is judged again.
func controlsKey(controls []Control) string {
	var b strings.Builder
	for _, c := range controls {
		b.WriteString(c.Name + "\x00" + strings.Join(c.ActivityTypes, ",") + "\x00" + c.AtMost + "\x01")
	}
	return b.String()
}

// sortSearch is the number of sorted positions below n.
func sortSearch(sorted []int, n int) int {
	i, _ := slices.BinarySearch(sorted, n)
	return i
}
