package replay

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// History is an organization's recent activities, rebuilt once per
// command and replayed for each change.
type History struct {
	// Read is how many activities were read; Requests those rebuilt.
	Read     int
	Requests []Request
	// NotRebuilt counts the others by reason.
	NotRebuilt map[string]int
	keys       keys
	org        *Org

	// byValue indexes the requests by their value at each guarded path a
	// change has asked about (candidates); changes are replayed
	// concurrently.
	mu      sync.Mutex
	byValue map[string]*pathIndex
}

// pathIndex is the requests by their value at one path, and those with
// none (whose read errs).
type pathIndex struct {
	at   map[string][]int
	none []int
}

// NewHistory is an empty history of org's activities.
func NewHistory(org *Org) *History {
	return &History{NotRebuilt: map[string]int{}, keys: org.index(), org: org}
}

// Add rebuilds one page of activities (RecentActivities hands them on a
// page at a time): each is kept as a request or counted by why not.
func (h *History) Add(page []client.Activity) {
	h.mu.Lock()
	h.byValue = nil // the indexes are of the requests before these
	h.mu.Unlock()
	for i := range page {
		h.Read++
		r, why := h.org.rebuild(&page[i], h.keys)
		if why != "" {
			h.NotRebuilt[why]++
			continue
		}
		h.Requests = append(h.Requests, r)
	}
}

// Moved is one replayed activity whose verdict a change moves, with
// policy_decision's outcome strings.
type Moved struct {
	ActivityID, Type, KeyID string
	Before, After           string
	// Request is the activity rebuilt, to place it in a report's region.
	Request *policyset.Request
}

// Result is one change's replay: every rebuilt activity decided by the
// policies before and after it.
type Result struct {
	// Replayed are the activities decided; NotRebuilt the others, by
	// reason: the history's, and those of which a policy that decides
	// them reads what history cannot give.
	Replayed   int
	NotRebuilt map[string]int
	// TodaysTags are the replayed activities rebuilt with their key's
	// tags as they are today, which may not be the tags they were decided
	// with.
	TodaysTags int
	// Moved are the activities whose verdict moves, in the history's
	// order (newest first).
	Moved []Moved
	// Used are, per changed version of an allow, how many replayed
	// activities it allowed or brought to consensus (its own outcome,
	// whatever the verdict).
	Used map[string]int
}

// Sets are, per activity type, the policies before and after a change
// that decide its activities: review.Org.Sets' slices (which move an
// activity exactly where the whole organization's policies do), or whole
// lists. An activity of a type the sets do not name does not move.
type Sets map[string][2][]policyset.Policy

// ForChange are the sets and changed versions the report compares for c
// (review.Org.Sets): what a plan replays for one change.
func ForChange(o *review.Org, c review.Change) (Sets, []policyset.Policy) {
	types, versions, before, after := o.Sets(c)
	sets := Sets{}
	for _, t := range types {
		sets[t] = [2][]policyset.Policy{before[t], after[t]}
	}
	return sets, versions
}

// Whole are the sets for whole lists of policies, for every type of h's
// activities: what policy_changes compares.
func (h *History) Whole(before, after []policyset.Policy) Sets {
	out := Sets{}
	for i := range h.Requests {
		out[h.Requests[i].Type] = [2][]policyset.Policy{before, after}
	}
	return out
}

// Replay decides every rebuilt activity of a type sets names against its
// sets before and after; changed are the versions that differ between
// them (nil decides every activity). An activity that no changed version
// allows, brings to consensus or denies is decided alike before and after
// (the sets differ only by versions that count nothing for it), so only
// the changed versions are evaluated for it.
func (h *History) Replay(sets Sets, changed []policyset.Policy) Result {
	out := Result{NotRebuilt: maps.Clone(h.NotRebuilt), Used: map[string]int{}}
	// Per type, whether a policy of the sets reads credentials, and which
	// changed versions are allows the sets after hold (their use counts).
	credentials, allowsAfter := map[string]bool{}, map[string][]bool{}
	for t, s := range sets {
		credentials[t] = readsKeyword(s[0], "credentials") || readsKeyword(s[1], "credentials")
		after := map[string]bool{}
		for _, q := range s[1] {
			after[q.DecisionKey()] = true
		}
		allowsAfter[t] = make([]bool, len(changed))
		for j, p := range changed {
			allowsAfter[t][j] = p.Effect == client.EffectAllow && after[p.DecisionKey()]
		}
	}
	replayed := func(r *Request) {
		out.Replayed++
		if r.TodaysTags {
			out.TodaysTags++
		}
	}
	candidate := h.candidates(changed)
	for i := range h.Requests {
		r := &h.Requests[i]
		s, ok := sets[r.Type]
		if !ok || (candidate != nil && !candidate[i]) {
			replayed(r)
			continue
		}
		ev := policyset.NewEvaluator(r.Req)
		counts := changed == nil // nil: every activity is decided
		var lacks string
		for j, p := range changed {
			switch ev.Outcome(p).Outcome {
			case client.OutcomeAllow, client.OutcomeRequiresConsensus:
				counts = true
				if allowsAfter[r.Type][j] {
					out.Used[p.ID]++
				}
			case client.OutcomeDenyExplicit:
				counts = true
			case client.OutcomeError:
				lacks = cmp.Or(lacks, lackedBy(r.Req, p))
			}
		}
		var moved *Moved
		if lacks == "" && counts {
			before, after := s[0], s[1]
			x, y := policyset.DecideWith(ev, before, r.Req), policyset.DecideWith(ev, after, r.Req)
			lacks = lacking(r.Req, before, x, after, y)
			if x.Verdict != y.Verdict {
				moved = &Moved{ActivityID: r.ActivityID, Type: r.Type, KeyID: r.KeyID, Before: x.Verdict, After: y.Verdict, Request: &r.Req}
			}
		}
		if lacks == "" && r.UnknownCredential && credentials[r.Type] {
			lacks = "an approval whose credential its user no longer lists, and a policy reads credentials"
		}
		if lacks != "" {
			out.NotRebuilt[lacks]++
			continue
		}
		if moved != nil {
			out.Moved = append(out.Moved, *moved)
		}
		replayed(r)
	}
	return out
}

// candidates are the requests the changed versions may count for: those
// with one of the values every version's condition requires at each
// path it guards (symbolic.GuardsOf), or with no value there, whose read
// errs (and which may lack what the service's request has); nil when
// every request is one.
func (h *History) candidates(changed []policyset.Policy) map[int]bool {
	guards := symbolic.GuardsOf(changed)
	if len(changed) == 0 || len(guards) == 0 {
		return nil
	}
	var out map[int]bool
	for _, path := range slices.Sorted(maps.Keys(guards)) {
		x := h.index(path)
		on := map[int]bool{}
		for _, v := range guards[path] {
			for _, i := range x.at[v] {
				on[i] = true
			}
		}
		for _, i := range x.none {
			on[i] = true
		}
		if out != nil {
			maps.DeleteFunc(out, func(i int, _ bool) bool { return !on[i] })
		} else {
			out = on
		}
	}
	return out
}

// index is the requests by their value at path, built at its first use.
func (h *History) index(path string) *pathIndex {
	h.mu.Lock()
	defer h.mu.Unlock()
	if x, ok := h.byValue[path]; ok {
		return x
	}
	x := &pathIndex{at: map[string][]int{}}
	for i := range h.Requests {
		v, ok := h.Requests[i].Req.Value(path)
		if !ok {
			x.none = append(x.none, i)
			continue
		}
		if g, ok := symbolic.GuardValue(v); ok {
			x.at[g] = append(x.at[g], i)
		}
	}
	if h.byValue == nil {
		h.byValue = map[string]*pathIndex{}
	}
	h.byValue[path] = x
	return x
}

// lacking names what req lacks that a policy which errs on it in either
// decision reads: that policy errs where the service's request would
// not, so the activity is not rebuilt; "" where no such policy errs.
func lacking(req policyset.Request, before []policyset.Policy, x policyset.Decision, after []policyset.Policy, y policyset.Decision) string {
	for _, set := range []struct {
		ps []policyset.Policy
		d  policyset.Decision
	}{{before, x}, {after, y}} {
		for i, p := range set.d.Policies {
			if p.Outcome != client.OutcomeError {
				continue
			}
			if why := lackedBy(req, set.ps[i]); why != "" {
				return why
			}
		}
	}
	return ""
}

// lackedBy names what req lacks that p reads, "" if nothing: p errs on
// req, and would not on the service's request.
func lackedBy(req policyset.Request, p policyset.Policy) string {
	for _, m := range req.Missing() {
		for _, k := range strings.Split(strings.TrimPrefix(m, "one of "), ", ") {
			if readsKeyword([]policyset.Policy{p}, k) {
				return "lacks " + k + ", which a policy reads"
			}
		}
	}
	return ""
}

// readsKeyword tells whether a policy of ps reads keyword.
func readsKeyword(ps []policyset.Policy, keyword string) bool {
	return slices.ContainsFunc(ps, func(p policyset.Policy) bool {
		for _, x := range []struct {
			f   policylang.Field
			src string
		}{{policylang.FieldCondition, p.Condition}, {policylang.FieldConsensus, p.Consensus}} {
			if x.src == "" {
				continue
			}
			if prog, d := policyset.Compile(x.f, x.src); d == nil && prog.Reads(keyword) {
				return true
			}
		}
		return false
	})
}
