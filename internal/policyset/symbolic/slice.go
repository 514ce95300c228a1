package symbolic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Slicing by equality guards (issue 39 item 9). A change moves a
// request's verdict only where one of its versions' conditions holds:
// elsewhere both versions are not applicable or err, and either counts
// for nothing. When every changed version's condition requires, at its
// top level, a value of one path (eth.tx.to == '0x…', or one of a
// list), a policy that requires of the same path only other values is
// not applicable, or errs, on every such request, so it counts for
// nothing there in either set: leaving it out of both sets changes no
// verdict that moves, and none that does not. The questions are then
// asked of the few policies a change can meet instead of all of them.

// guards are the values a policy's condition requires of each path at
// its top level: a conjunct path == c or path in [c, …], with constant
// values, of a scalar path read directly (no slice, no bound variable).
// A conjunct that is false makes the condition false; one that errs makes
// it err; so off these values the policy never applies.
type guards map[string][]string

var guardCache = policyset.NewMemo[string, guards](maxCachedForms)

func guardsOf(p policyset.Policy) guards {
	return guardCache.Get(p.Condition, func() guards {
		pf := readPolicy(p, nil, false)
		if pf.broken || pf.cond == nil {
			return nil
		}
		g := guards{}
		for _, f := range conjuncts(pf.cond, nil) {
			path, vals, ok := guardOf(f)
			if !ok {
				continue
			}
			if have, twice := g[path]; twice {
				vals = slices.DeleteFunc(vals, func(v string) bool { return !slices.Contains(have, v) })
			}
			g[path] = vals
		}
		return g
	})
}

// conjuncts are f's top-level conjuncts, nested conjunctions flattened.
func conjuncts(f *form, into []*form) []*form {
	if f.op != fAnd {
		return append(into, f)
	}
	for _, a := range f.args {
		into = conjuncts(a, into)
	}
	return into
}

// guardOf reads one conjunct as a guard.
func guardOf(f *form) (path string, vals []string, ok bool) {
	if f.op != fCmp || (f.cmp != "==" && f.cmp != "in") || f.left == nil || f.left.kind != tPath || f.left.slice != nil ||
		strings.HasPrefix(f.left.path, "$") || f.left.typ == nil || f.right == nil {
		return "", nil, false
	}
	kind := f.left.typ.Kind
	if kind != policylang.KindString && kind != policylang.KindInt && kind != policylang.KindUint && kind != policylang.KindBool {
		return "", nil, false
	}
	consts := []*term{f.right}
	if f.cmp == "in" {
		if f.right.kind != tList {
			return "", nil, false
		}
		consts = f.right.elems
	}
	for _, c := range consts {
		v, ok := guardValue(kind, c)
		if !ok {
			return "", nil, false
		}
		vals = append(vals, v)
	}
	return f.left.path, vals, true
}

// guardValue is a constant as the guard compares it: an integer by its
// value (a quoted number beside an int counts as that int), anything
// else by its text and type.
func guardValue(kind policylang.Kind, c *term) (string, bool) {
	if c.kind != tConst {
		return "", false
	}
	if kind == policylang.KindInt || kind == policylang.KindUint {
		n, ok := constInt(c)
		if !ok {
			return "", false
		}
		return n.String(), true
	}
	return fmt.Sprintf("%T:%v", c.val, c.val), true
}

// SliceByGuards keeps of ps the policies that can count for a request on
// which some of changed's conditions hold (see above). With no changed
// version, or one without guards, it keeps them all.
func SliceByGuards(ps, changed []policyset.Policy) []policyset.Policy {
	if len(changed) == 0 {
		return ps
	}
	// The paths every changed version guards, with the union of their
	// values.
	union := guards{}
	for path, vals := range guardsOf(changed[0]) {
		union[path] = slices.Clone(vals)
	}
	for _, c := range changed[1:] {
		g := guardsOf(c)
		for path := range union {
			vals, ok := g[path]
			if !ok {
				delete(union, path)
				continue
			}
			union[path] = append(union[path], vals...)
		}
	}
	if len(union) == 0 {
		return ps
	}
	out := make([]policyset.Policy, 0, len(ps))
	for _, p := range ps {
		if !excluded(guardsOf(p), union) {
			out = append(out, p)
		}
	}
	return out
}

// excluded: g requires, of some path of union, only values outside it.
func excluded(g, union guards) bool {
	for path, vals := range g {
		if allowed, ok := union[path]; ok && !slices.ContainsFunc(vals, func(v string) bool { return slices.Contains(allowed, v) }) {
			return true
		}
	}
	return false
}
