package review

import (
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

// guardOf is the condition's first guard by path, false when it has none.
func guardOf(condition string) (guard, bool) {
	n, err := policylang.Parse(condition)
	if condition == "" || err != nil {
		return guard{}, false
	}
	if len(disjuncts(n)) != 1 {
		return guard{}, false
	}
	w := walker{out: &exprAtoms{}, lambdas: map[string]string{}}
	var best guard
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
		if vals != nil && (best.path == "" || at.path < best.path) {
			best = guard{path: at.path, ref: refOf(at.path), vals: vals}
		}
	}
	return best, best.path != ""
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
	g, ok := o.guard(p.Condition)
	if !ok {
		return true
	}
	v, known := reqValue(req, g.ref)
	return !known || g.vals[v]
}

// guard is guardOf, cached per condition text.
func (o *Org) guard(condition string) (guard, bool) {
	g, ok := o.guards[condition]
	if o.noGuards {
		return guard{}, false
	}
	if !ok {
		g.g, g.ok = guardOf(condition)
		o.guards[condition] = g
	}
	return g.g, g.ok
}

type cachedGuard struct {
	g  guard
	ok bool
}
