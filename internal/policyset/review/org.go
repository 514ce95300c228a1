package review

import (
	"maps"
	"slices"
	"sync"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

const (
	outcomeAllow     = client.OutcomeAllow
	outcomeConsensus = client.OutcomeRequiresConsensus
)

// Org is an organization's policies as one command found them (managed
// and unmanaged; Policy.ID names each), with the requests and outcomes
// computed so far, kept so that each change costs only the requests of
// the activity types it can touch. Safe for concurrent use.
type Org struct {
	mu        sync.Mutex
	policies  []policyset.Policy
	byID      map[string]int
	byIDOrder []policyset.Policy // the policies sorted by id, for findings
	byType    map[string][]int   // the policies that can apply to each type
	atoms     []exprAtoms        // per policy, lazily
	walked    []bool
	bases     map[string]*typeSample  // by type: the organization's samples
	samples   map[sampleKey][]sampled // a change's samples, bounded
	reqs      map[string]*reqState    // by example
	applies   map[string][]string     // by condition text: appliesTo, cached

	counted     []counted                  // changes counted into the most permissive state
	countedKeys map[string]bool            // policyKey of before and after: counted already
	reported    map[string]bool            // control name + example: breaches already returned
	ctlSeen     map[string]map[string]bool // by type: their examples
	ctl         map[string]*ctlType        // by type: the requests controls judge, indexed

	countedIdx *guardIndex            // o.counted by guard
	guards     map[string]cachedGuard // by condition text
	guardSeen  map[string]int         // path and value -> how many guards cached so far require it
	noGuards   bool                   // tests: decide every request with every policy
	polIndex   map[string]*guardIndex // by type: its policies by guard
}

// reqState is one sampled request's evaluator (which memoizes each
// expression's value) and, once asked for, its base tally and decision.
type reqState struct {
	req       policyset.Request
	ev        *policyset.Evaluator
	baseReady bool
	base      policyset.Tally
	decision  string
	permReady bool
	perm      policyset.Tally // the most permissive state, for controls
}

type sampleKey struct{ typ, extra string }

// maxCachedSamples bounds the samples an Org keeps for changes.
const maxCachedSamples = 256

// NewOrg indexes the policies by the activity types each can apply to.
func NewOrg(policies []policyset.Policy) *Org {
	o := &Org{policies: policies, byID: map[string]int{}, byType: map[string][]int{}, atoms: make([]exprAtoms, len(policies)),
		walked: make([]bool, len(policies)), samples: map[sampleKey][]sampled{}, bases: map[string]*typeSample{}, reqs: map[string]*reqState{},
		applies: map[string][]string{}, reported: map[string]bool{}, countedKeys: map[string]bool{},
		ctlSeen: map[string]map[string]bool{}, ctl: map[string]*ctlType{},
		countedIdx: newGuardIndex(), guards: map[string]cachedGuard{}, guardSeen: map[string]int{}, polIndex: map[string]*guardIndex{}}
	for i, p := range policies {
		o.byID[p.ID] = i
		for _, t := range o.appliesTo(p) {
			o.byType[t] = append(o.byType[t], i)
		}
	}
	return o
}

// appliesTo is the package's appliesTo, cached per expression text.
func (o *Org) appliesTo(p policyset.Policy) []string {
	key := p.Condition + "\x00" + p.Consensus + "\x00" + p.Time
	ts, ok := o.applies[key]
	if !ok {
		ts = appliesTo(p)
		o.applies[key] = ts
	}
	return ts
}

// lookup is the organization's version of the policy a change's Before
// names, nil when the organization has none (a create).
func (o *Org) lookup(before *policyset.Policy) *policyset.Policy {
	if before == nil {
		return nil
	}
	if i, ok := o.byID[before.ID]; ok {
		return &o.policies[i]
	}
	return nil
}

func (o *Org) policyAtoms(i int) exprAtoms {
	if !o.walked[i] {
		p := o.policies[i]
		o.atoms[i], o.walked[i] = walkPolicy(p.Condition, p.Consensus, p.Time), true
	}
	return o.atoms[i]
}

// view is a type's sample: the organization's part, then a change's.
// They are kept apart so that a change neither copies nor walks the
// organization's part (its index finds the requests the change can move).
type view struct {
	base  *typeSample
	extra []sampled
}

func (v view) len() int { return len(v.base.sampled) + len(v.extra) }

func (v view) at(i int) sampled {
	if i < len(v.base.sampled) {
		return v.base.sampled[i]
	}
	return v.extra[i-len(v.base.sampled)]
}

// all is the sample as one list, for Compare, which decides all of it.
func (v view) all() []sampled {
	return append(slices.Clip(v.base.sampled), v.extra...)
}

// sample is the type's sample from the organization's policies, followed
// by the requests the extra ones (a change's versions) add: their own
// values varied from the organization's neutral request, their seeds and
// approver sets. The organization's part is built once per type, so a
// change costs its own requests, not the whole sample again.
func (o *Org) sample(typ string, extra ...*policyset.Policy) view {
	base := o.baseSample(typ)
	key := sampleKey{typ: typ}
	for _, p := range extra {
		if p != nil {
			key.extra += p.Condition + "\x00" + p.Consensus + "\x00" + p.Time + "\x01"
		}
	}
	if key.extra == "" {
		return view{base: base}
	}
	if s, ok := o.samples[key]; ok {
		return view{base: base, extra: s}
	}
	// Walked only when not cached: a change's report, findings and
	// controls each ask for its sample.
	var all []exprAtoms
	for _, p := range extra {
		if p != nil {
			all = append(all, walkPolicy(p.Condition, p.Consensus, p.Time))
		}
	}
	ta := gather(all)
	neutral := maps.Clone(base.neutral)
	for p, v := range ta.neutral {
		if _, ok := neutral[p]; !ok {
			neutral[p] = v
		}
	}
	s, _ := build(typ, ta, neutral, base.full, base.joins, base.seen)
	// A change's samples serve its report, findings and controls, asked
	// one after the other; a plan of many changes must not keep them all.
	if len(o.samples) > maxCachedSamples {
		clear(o.samples)
		o.forgetChangeStates()
	}
	o.samples[key] = s
	return view{base: base, extra: s}
}

// typeSample is the organization's sample of one type.
type typeSample struct {
	sampled []sampled
	neutral map[string]any
	full    []policyset.User
	joins   *seedJoins // the organization's conjunctions, to join a change's with
	seen    *seen      // the examples sampled, the assignments tried
	idx     *reqIndex  // sampled, indexed by guard paths
}

func (o *Org) baseSample(typ string) *typeSample {
	if ts, ok := o.bases[typ]; ok {
		return ts
	}
	var all []exprAtoms
	for _, i := range o.byType[typ] {
		all = append(all, o.policyAtoms(i))
	}
	ta := gather(all)
	ts := &typeSample{neutral: ta.neutral, full: ta.sets[len(ta.sets)-1], joins: newSeedJoins(ta.seeds)}
	ts.sampled, ts.seen = build(typ, ta, ts.neutral, ts.full, nil, nil)
	ts.idx = newReqIndex(ts.sampled)
	o.bases[typ] = ts
	return ts
}

// state is the request's state, created on first use.
func (o *Org) state(s sampled) *reqState {
	st, ok := o.reqs[s.example]
	if !ok {
		st = &reqState{req: s.req, ev: policyset.NewEvaluator(s.req)}
		o.reqs[s.example] = st
	}
	return st
}

// baseTally is the request's tally over the organization's policies that
// can apply to its type, computed once; the policies whose guards rule
// the request out count nothing and are not evaluated.
func (o *Org) baseTally(st *reqState) (policyset.Tally, string) {
	if !st.baseReady {
		for _, i := range o.countable(st.req) {
			st.base.Add(st.ev.Outcome(o.policies[i]), 1)
		}
		st.decision = policyset.DecideTally(st.base, st.req).Verdict
		st.baseReady = true
	}
	return st.base, st.decision
}

// outcome is p's outcome for the request; an absent policy gives nothing.
func outcome(st *reqState, p *policyset.Policy) policyset.PolicyOutcome {
	if p == nil {
		return policyset.PolicyOutcome{Outcome: policyset.OutcomeNotApplicable}
	}
	return st.ev.Outcome(*p)
}

// decisionEqual: the change moves no decision field (a rename, a notes
// change, a reorder).
func decisionEqual(c Change) bool {
	if c.Before == nil || c.After == nil {
		return c.Before == nil && c.After == nil
	}
	return sameDecision(*c.Before, *c.After)
}

func sameDecision(a, b policyset.Policy) bool {
	return a.Effect == b.Effect && a.Condition == b.Condition && a.Consensus == b.Consensus && a.Time == b.Time
}

// typesOf lists the types either version can apply to, in catalogue order.
func (o *Org) typesOf(ps ...*policyset.Policy) []string {
	want := map[string]bool{}
	for _, p := range ps {
		if p != nil {
			for _, t := range o.appliesTo(*p) {
				want[t] = true
			}
		}
	}
	var out []string
	for _, t := range policyTypes {
		if want[t] {
			out = append(out, t)
		}
	}
	return out
}

// forgetChangeStates drops the states of requests only past changes
// sampled (neither the organization's nor kept for controls): a plan of
// many changes would otherwise keep every one it ever decided.
func (o *Org) forgetChangeStates() {
	for ex, st := range o.reqs {
		typ := st.req.Type
		if b := o.bases[typ]; (b == nil || !b.seen.examples[ex]) && !o.ctlSeen[typ][ex] {
			delete(o.reqs, ex)
		}
	}
}
