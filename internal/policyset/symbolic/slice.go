package symbolic

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
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
	union := unionOfGuards(changed)
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

// unionOfGuards is, for each path that every changed version guards, the
// values any of them allows.
func unionOfGuards(changed []policyset.Policy) guards {
	if len(changed) == 0 {
		return nil
	}
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
	return union
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

// GuardIndex answers SliceByGuards over one list of policies, which may
// grow, by the guards' values, so that a plan of N changes does not read
// every policy's guards N times. Not safe for concurrent use.
type GuardIndex struct {
	ps []policyset.Policy
	gs []guards
	// byValue: path, then value, to the policies that guard path and allow
	// value; unguarded: path to the policies that do not guard it, built
	// for a path the first time a slice asks about it.
	byValue   map[string]map[string][]int
	unguarded map[string][]int
}

// NewGuardIndex indexes ps.
func NewGuardIndex(ps []policyset.Policy) *GuardIndex {
	x := &GuardIndex{byValue: map[string]map[string][]int{}, unguarded: map[string][]int{}}
	for _, p := range ps {
		x.Add(p)
	}
	return x
}

// Add appends p to the list.
func (x *GuardIndex) Add(p policyset.Policy) {
	i := len(x.ps)
	g := guardsOf(p)
	x.ps, x.gs = append(x.ps, p), append(x.gs, g)
	for path, vals := range g {
		m := x.byValue[path]
		if m == nil {
			m = map[string][]int{}
			x.byValue[path] = m
		}
		for _, v := range slices.Compact(slices.Sorted(slices.Values(vals))) {
			m[v] = append(m[v], i)
		}
	}
	for path, list := range x.unguarded {
		if _, ok := g[path]; !ok {
			x.unguarded[path] = append(list, i)
		}
	}
}

// Len is how many policies the list holds.
func (x *GuardIndex) Len() int { return len(x.ps) }

// Slice is SliceByGuards(the list, changed), in the list's order.
func (x *GuardIndex) Slice(changed []policyset.Policy) []policyset.Policy {
	is := x.SliceIndexes(changed)
	if is == nil {
		return x.ps
	}
	out := make([]policyset.Policy, len(is))
	for k, i := range is {
		out[k] = x.ps[i]
	}
	return out
}

// SliceIndexes are the positions Slice keeps, in order; nil when it keeps
// every policy.
func (x *GuardIndex) SliceIndexes(changed []policyset.Policy) []int {
	union := unionOfGuards(changed)
	if len(union) == 0 {
		return nil
	}
	// Candidates by the path that admits the fewest (the type's own guard
	// admits them all), counted before any is listed, each then checked
	// against every path.
	best, fewest := "", -1
	for _, path := range slices.Sorted(maps.Keys(union)) {
		n := len(x.unguardedOn(path))
		for _, v := range union[path] {
			n += len(x.byValue[path][v])
		}
		if fewest < 0 || n < fewest {
			best, fewest = path, n
		}
	}
	cand := make([]int, 0, fewest)
	for _, v := range union[best] {
		cand = append(cand, x.byValue[best][v]...)
	}
	cand = append(cand, x.unguardedOn(best)...)
	slices.Sort(cand)
	cand = slices.Compact(cand)
	out := make([]int, 0, len(cand))
	for _, i := range cand {
		if !excluded(x.gs[i], union) {
			out = append(out, i)
		}
	}
	return out
}

// unguardedOn lists the policies without a guard on path.
func (x *GuardIndex) unguardedOn(path string) []int {
	if list, ok := x.unguarded[path]; ok {
		return list
	}
	list := []int{}
	for i, g := range x.gs {
		if _, ok := g[path]; !ok {
			list = append(list, i)
		}
	}
	x.unguarded[path] = list
	return list
}

// GuardsOf are, for each path that every one of changed guards, the
// values any of them allows (by GuardValue): off them none of changed
// applies. The replay decides only the activities on them.
func GuardsOf(changed []policyset.Policy) map[string][]string { return unionOfGuards(changed) }

// GuardValue is a request's value at a guarded path as the guards name
// it (guardValue): an integer by its value, a string or a bool by its
// text and type; ok is false for any other value.
func GuardValue(v any) (string, bool) {
	switch x := v.(type) {
	case string, bool:
		return fmt.Sprintf("%T:%v", x, x), true
	case *big.Int:
		return x.String(), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	}
	return "", false
}
