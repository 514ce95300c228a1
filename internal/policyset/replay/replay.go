package replay

import (
	"maps"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
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
}

// NewHistory is an empty history of org's activities.
func NewHistory(org *Org) *History {
	return &History{NotRebuilt: map[string]int{}, keys: org.index(), org: org}
}

// Add rebuilds one page of activities (RecentActivities hands them on a
// page at a time): each is kept as a request or counted by why not.
func (h *History) Add(page []client.Activity) {
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
}

// Result is one change's replay: every rebuilt activity decided by the
// policies before and after it.
type Result struct {
	// Replayed are the activities decided; NotRebuilt the others, by
	// reason: the history's, and those this change's policies read
	// something of that history cannot give.
	Replayed   int
	NotRebuilt map[string]int
	// Moved are the activities whose verdict moves, in the history's
	// order (newest first).
	Moved []Moved
	// Used are, per allow of the sets after, how many replayed activities
	// it allowed or brought to consensus (its own outcome, whatever the
	// verdict).
	Used map[string]int
}

// Sets are, per activity type, the policies before and after a change
// that decide its activities: review.Org.Sets' slices (which move an
// activity exactly where the whole organization's policies do), or the
// whole sets (Whole). An activity of a type the sets do not name does not
// move.
type Sets map[string][2][]policyset.Policy

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
// sets before and after.
func (h *History) Replay(sets Sets) Result {
	out := Result{NotRebuilt: maps.Clone(h.NotRebuilt), Used: map[string]int{}}
	readsCreds := map[string]bool{}
	for t, s := range sets {
		readsCreds[t] = readsKeyword(s[0], "credentials") || readsKeyword(s[1], "credentials")
	}
	for i := range h.Requests {
		r := &h.Requests[i]
		s, ok := sets[r.Type]
		if !ok {
			out.Replayed++
			continue
		}
		if r.UnknownCredential && readsCreds[r.Type] {
			out.NotRebuilt["an approval whose credential its user no longer lists, and a policy reads credentials"]++
			continue
		}
		before, after := s[0], s[1]
		ev := policyset.NewEvaluator(r.Req)
		x, y := policyset.DecideWith(ev, before, r.Req), policyset.DecideWith(ev, after, r.Req)
		if lacks := lacking(r.Req, before, x, after, y); lacks != "" {
			out.NotRebuilt[lacks]++
			continue
		}
		out.Replayed++
		for j, p := range y.Policies {
			if after[j].Effect == client.EffectAllow && (p.Outcome == client.OutcomeAllow || p.Outcome == client.OutcomeRequiresConsensus) {
				out.Used[after[j].ID]++
			}
		}
		if x.Verdict != y.Verdict {
			out.Moved = append(out.Moved, Moved{ActivityID: r.ActivityID, Type: r.Type, KeyID: r.KeyID, Before: x.Verdict, After: y.Verdict})
		}
	}
	return out
}

// lacking names what req lacks that a policy which errs on it reads:
// that policy errs where the service's request would not, so the
// activity is not rebuilt; "" where no such policy errs.
func lacking(req policyset.Request, before []policyset.Policy, x policyset.Decision, after []policyset.Policy, y policyset.Decision) string {
	missing := req.Missing()
	if len(missing) == 0 {
		return ""
	}
	var keywords []string
	for _, m := range missing {
		keywords = append(keywords, strings.Split(strings.TrimPrefix(m, "one of "), ", ")...)
	}
	for _, set := range []struct {
		ps []policyset.Policy
		d  policyset.Decision
	}{{before, x}, {after, y}} {
		for i, p := range set.d.Policies {
			if p.Outcome != client.OutcomeError {
				continue
			}
			for _, k := range keywords {
				if readsKeyword(set.ps[i:i+1], k) {
					return "lacks " + k + ", which a policy reads"
				}
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
