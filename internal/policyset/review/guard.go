package review

import (
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// A guard is what a policy's condition requires of a string field at its
// top level: a condition that is one conjunction holding `path == 'x'`
// (or `path in ['x', ...]`) is false or an error for a request whose value
// there is known and none of those. Both outcomes count for nothing in a
// policyset.Tally (the language has no short-circuit, and an error makes
// the outcome an error), so tallies and decisions may skip such a policy
// for such a request: the review needs only those, never per-policy lists.
// Only values read back from the built request are trusted; a request
// without the field (an error, also nothing) is never skipped.
type guard struct {
	path string
	ref  fieldRef
	vals map[string]bool
}

// fieldRef is where a guard path's value sits in a request: a keyword's
// field, or the activity's params' when kw is "". Resolved once, since
// pathType costs more than the lookup.
type fieldRef struct{ kw, field string }

func refOf(p string) fieldRef {
	_, kw, field, _ := pathType(p)
	return fieldRef{kw: kw, field: field}
}

// guardsOf are every guard of the condition, by path: a request must
// agree with all of them for the policy to count. None when the condition
// is not one conjunction or does not parse.
func guardsOf(condition string) []guard {
	n, err := policylang.Parse(condition)
	if condition == "" || err != nil {
		return nil
	}
	if len(disjuncts(n)) != 1 {
		return nil
	}
	w := walker{out: &exprAtoms{}, lambdas: map[string]string{}}
	var out []guard
	for _, c := range conjuncts(n) {
		at, ok := w.atomOf(c)
		if !ok || (at.op != "==" && at.op != "in") || !guardPath(at.path) || len(at.vals) == 0 {
			continue
		}
		vals := map[string]bool{}
		for _, v := range at.vals {
			s, isStr := v.(string)
			if !isStr {
				vals = nil
				break
			}
			vals[s] = true
		}
		if vals != nil {
			out = append(out, guard{path: at.path, ref: refOf(at.path), vals: vals})
		}
	}
	slices.SortStableFunc(out, func(a, b guard) int { return strings.Compare(a.path, b.path) })
	return out
}

// guardPath: a string field the sampler sets through a keyword or the
// activity's params, whose value reqValue can read back.
func guardPath(p string) bool {
	if activityFields[p] {
		return false
	}
	t, kw, _, ok := pathType(p)
	return ok && t.Kind == policylang.KindString && (kw != "" || strings.HasPrefix(p, "activity.params."))
}

// reqValue is the request's string at a guard path, as the evaluator
// reads it; false when the request has none there (or not a string).
func reqValue(req policyset.Request, r fieldRef) (string, bool) {
	var m map[string]any
	if r.kw != "" {
		v, ok := req.Keyword(r.kw)
		if !ok {
			return "", false
		}
		m, _ = v.(map[string]any)
	} else {
		m = req.Params
	}
	s, ok := m[r.field].(string)
	return s, ok
}

// mayCount tells whether the policy can count in the request's tally: it
// exists and its guard, if any, does not rule the request out.
func (o *Org) mayCount(p *policyset.Policy, req policyset.Request) bool {
	if p == nil {
		return false
	}
	for _, g := range o.allGuards(p.Condition) {
		if v, known := reqValue(req, g.ref); known && !g.vals[v] {
			return false
		}
	}
	return true
}

// mayCountAny tells whether one of ps may count for the request.
func (o *Org) mayCountAny(req policyset.Request, ps ...*policyset.Policy) bool {
	for _, p := range ps {
		if o.mayCount(p, req) {
			return true
		}
	}
	return false
}

// guard is the guard the indexes file the condition under (see
// cacheGuards), cached per condition text.
func (o *Org) guard(condition string) (guard, bool) {
	g, ok := o.guards[condition]
	if o.noGuards {
		return guard{}, false
	}
	if !ok {
		g = o.cacheGuards(condition)
	}
	return g.g, g.ok
}

// allGuards are guardsOf, cached per condition text; none in tests that
// turn the guards off.
func (o *Org) allGuards(condition string) []guard {
	if o.noGuards {
		return nil
	}
	g, ok := o.guards[condition]
	if !ok {
		g = o.cacheGuards(condition)
	}
	return g.all
}

// cacheGuards caches the condition's guards and chooses the one the
// indexes file it under: the most selective so far, the guard whose
// values the conditions seen before it required least often (ties: by
// path). A guard every policy shares (eth.tx.data == '0x') would put every
// policy in one bucket; its neighbour eth.tx.to == '<own address>' puts
// each in its own. The choice only decides how much the indexes prune:
// mayCount checks every guard, so results are the same whatever it is.
func (o *Org) cacheGuards(condition string) cachedGuard {
	all := guardsOf(condition)
	g := cachedGuard{all: all, ok: len(all) > 0}
	best := -1
	for _, c := range all {
		seen := 0
		for v := range c.vals {
			seen += o.guardSeen[c.path+"\x00"+v]
		}
		if best < 0 || seen < best {
			g.g, best = c, seen
		}
	}
	for _, c := range all {
		for v := range c.vals {
			o.guardSeen[c.path+"\x00"+v]++
		}
	}
	o.guards[condition] = g
	return g
}

type cachedGuard struct {
	g   guard
	ok  bool
	all []guard
}
