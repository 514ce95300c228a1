package symbolic

import (
	"math/big"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Asking about a change only where its versions differ (issue 50 item 6).
// A limit raised from 1,000 to 2,000 wei moves verdicts only where the two
// versions decide apart: where the other conditions hold and the value is
// from 1,001 to 2,000. Every request that moves is there (elsewhere the
// version's outcome is the same in both sets, and so is every other
// policy's), so a policy's top-level range on the value is settled there:
// a policy whose range misses the band is not applicable anywhere a
// verdict moves, and counts for nothing (left out, as guards leave out
// other destinations); a policy whose range holds all of the band reads it
// as true (the comparison is dropped). Policies that differ only in
// their limits then read alike, and a question over an organization of
// one destination and many limits is asked over the few policies whose
// limits fall inside the band, and one of each kind of the others.

// bandOff turns bands off, for the tests that compare answers with and
// without them.
var bandOff bool

// band is where a change can move a verdict: the values of one integer
// path from lo to hi (nil: unbounded; path "": no range), and for each
// string path every version guards, the values they name (strs).
type band struct {
	path   string
	lo, hi *big.Int
	strs   map[string][]string
}

// guardConjunct is a top-level conjunct path == 'c' or path in ['c', …]
// of a string path read directly: the values it holds for.
type guardConjunct struct {
	path string
	vals []string
}

// rangeConjunct is a top-level conjunct path op constant of a policy's
// condition, on an integer path read directly.
type rangeConjunct struct {
	path   string
	lo, hi *big.Int // the values it holds for
}

// readConjuncts are a condition's top-level conjuncts: each one's source
// text, and its range where it is a rangeConjunct; ok is false where a
// conjunct has no source (its text cannot be rebuilt).
type readConjuncts struct {
	srcs   []string
	ranges []*rangeConjunct
	guards []*guardConjunct
	ok     bool
}

var conjunctCache = policyset.NewMemo[string, readConjuncts](maxCachedForms)

func conjunctsOfCondition(p policyset.Policy) readConjuncts {
	return conjunctCache.Get(p.Condition, func() readConjuncts {
		pf := readPolicy(p, nil, false)
		if pf.broken || pf.cond == nil {
			return readConjuncts{}
		}
		rc := readConjuncts{ok: true}
		for _, f := range conjuncts(pf.cond, nil) {
			if f.src == "" {
				return readConjuncts{}
			}
			rc.srcs = append(rc.srcs, f.src)
			rc.ranges = append(rc.ranges, rangeOf(f))
			rc.guards = append(rc.guards, stringGuardOf(f))
		}
		return rc
	})
}

// stringGuardOf reads f as a guardConjunct, nil where it is none.
func stringGuardOf(f *form) *guardConjunct {
	path, _, ok := guardOf(f)
	if !ok || f.left.typ.Kind != policylang.KindString {
		return nil
	}
	consts := []*term{f.right}
	if f.cmp == "in" {
		consts = f.right.elems
	}
	g := &guardConjunct{path: path}
	for _, c := range consts {
		s, ok := c.val.(string)
		if !ok {
			return nil
		}
		g.vals = append(g.vals, s)
	}
	slices.Sort(g.vals)
	g.vals = slices.Compact(g.vals)
	return g
}

// rangeOf reads f as a rangeConjunct, nil where it is none.
func rangeOf(f *form) *rangeConjunct {
	if f.op != fCmp || f.untyped != nil || f.left == nil || f.left.kind != tPath || f.left.slice != nil || len(f.left.reads) > 0 ||
		strings.HasPrefix(f.left.path, "$") || f.left.typ == nil || f.right == nil || f.right.kind != tConst {
		return nil
	}
	if k := f.left.typ.Kind; k != policylang.KindInt && k != policylang.KindUint {
		return nil
	}
	c, ok := constInt(f.right)
	if !ok || !inLanguageRange(c) {
		return nil
	}
	r := &rangeConjunct{path: f.left.path}
	switch f.cmp {
	case "<":
		r.hi = new(big.Int).Sub(c, one)
	case "<=":
		r.hi = c
	case ">":
		r.lo = new(big.Int).Add(c, one)
	case ">=":
		r.lo = c
	case "==":
		r.lo, r.hi = c, c
	default:
		return nil
	}
	return r
}

// bandOf is the band of a change's versions (one, or two):
//   - two versions of one policy (one id: a change's before and after)
//     that differ only in the constants of their top-level ranges on one
//     path (the same effect, consensus and time, and the same other
//     conjuncts) decide apart only where one range holds and the other
//     does not;
//   - otherwise a verdict moves only where some version applies: on a
//     path that every version ranges over, within the hull of their
//     ranges.
//
// ok is false where there is no such path, or the band would be empty
// (the solver then proves that nothing moves).
func bandOf(changed []policyset.Policy) (band, bool) {
	if bandOff {
		return band{}, false
	}
	var cs []readConjuncts
	for _, v := range changed {
		c := conjunctsOfCondition(v)
		if !c.ok {
			return band{}, false
		}
		cs = append(cs, c)
	}
	var bd band
	switch len(changed) {
	case 1:
		bd = appliesBand(cs)
	case 2:
		var ok bool
		if bd, ok = differenceBand(changed[0], changed[1], cs[0], cs[1]); !ok {
			bd = appliesBand(cs)
		}
	default:
		return band{}, false
	}
	bd.strs = guardedValues(cs)
	return bd, bd.path != "" || len(bd.strs) > 0
}

// guardedValues are, for each string path that every version guards at
// its top level, the values any of them names: a verdict moves only where
// some version applies, so only with one of these values.
func guardedValues(cs []readConjuncts) map[string][]string {
	out := map[string][]string{}
	for i, c := range cs {
		mine := map[string][]string{}
		for _, g := range c.guards {
			if g == nil {
				continue
			}
			if have, twice := mine[g.path]; twice {
				// Two guards on one path: the values both name.
				mine[g.path] = slices.DeleteFunc(slices.Clone(have), func(v string) bool { return !slices.Contains(g.vals, v) })
				continue
			}
			mine[g.path] = g.vals
		}
		if i == 0 {
			out = mine
			continue
		}
		for path, vals := range out {
			if more, ok := mine[path]; ok {
				out[path] = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(vals), more...))))
			} else {
				delete(out, path)
			}
		}
	}
	return out
}

// appliesBand is the hull of the versions' ranges on the first path that
// every one of them ranges over; no range (path "") where there is none.
func appliesBand(cs []readConjuncts) band {
	for _, r := range cs[0].ranges {
		if r == nil {
			continue
		}
		var lo, hi *big.Int
		every := true
		for i, c := range cs {
			l, h, on := intervalOf(c, r.path)
			if !on || isEmpty(l, h) {
				every = false
				break
			}
			if i == 0 {
				lo, hi = l, h
			} else {
				lo, hi = minLo(lo, l), maxHi(hi, h)
			}
		}
		if every {
			return band{path: r.path, lo: lo, hi: hi}
		}
	}
	return band{}
}

// intervalOf is intervalOn, and whether c ranges over path at all.
func intervalOf(c readConjuncts, path string) (lo, hi *big.Int, on bool) {
	on = slices.ContainsFunc(c.ranges, func(r *rangeConjunct) bool { return r != nil && r.path == path })
	lo, hi = intervalOn(c, path)
	return lo, hi, on
}

// differenceBand is the first case of bandOf.
func differenceBand(b, a policyset.Policy, cb, ca readConjuncts) (band, bool) {
	// Two policies created together move verdicts wherever either
	// applies: only one policy's two versions stand for each other.
	if b.ID != a.ID || b.Effect != a.Effect || b.Consensus != a.Consensus || b.Time != a.Time || b.Condition == a.Condition {
		return band{}, false
	}
	// The path whose ranges differ: the conjuncts off it must be the same.
	path := ""
	rest := func(c readConjuncts, p string) []string {
		var out []string
		for i, s := range c.srcs {
			if r := c.ranges[i]; r == nil || r.path != p {
				out = append(out, s)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, c := range [][]*rangeConjunct{cb.ranges, ca.ranges} {
		for _, r := range c {
			if r != nil && slices.Equal(rest(cb, r.path), rest(ca, r.path)) {
				path = r.path
			}
		}
	}
	if path == "" {
		return band{}, false
	}
	lb, hb := intervalOn(cb, path)
	la, ha := intervalOn(ca, path)
	lo, hi, ok := symmetricHull(lb, hb, la, ha)
	if !ok {
		return band{}, false
	}
	return band{path: path, lo: lo, hi: hi}, true
}

// intervalOn is the intersection of c's ranges on path (nil ends:
// unbounded).
func intervalOn(c readConjuncts, path string) (lo, hi *big.Int) {
	for _, r := range c.ranges {
		if r == nil || r.path != path {
			continue
		}
		if r.lo != nil && (lo == nil || r.lo.Cmp(lo) > 0) {
			lo = r.lo
		}
		if r.hi != nil && (hi == nil || r.hi.Cmp(hi) < 0) {
			hi = r.hi
		}
	}
	return lo, hi
}

// symmetricHull is the smallest interval that holds every value in one
// of [lb, hb] and [la, ha] but not both; ok is false where there is none
// (the intervals are equal, or both empty).
func symmetricHull(lb, hb, la, ha *big.Int) (lo, hi *big.Int, ok bool) {
	emptyB, emptyA := isEmpty(lb, hb), isEmpty(la, ha)
	switch {
	case emptyB && emptyA:
		return nil, nil, false
	case emptyB:
		return la, ha, true
	case emptyA:
		return lb, hb, true
	}
	// Disjoint: the hull of both.
	if (hb != nil && la != nil && hb.Cmp(la) < 0) || (ha != nil && lb != nil && ha.Cmp(lb) < 0) {
		return minLo(lb, la), maxHi(hb, ha), true
	}
	loSame, hiSame := sameEnd(lb, la), sameEnd(hb, ha)
	switch {
	case loSame && hiSame:
		return nil, nil, false
	case loSame:
		// The difference is above the lower of the two upper ends.
		return new(big.Int).Add(minHi(hb, ha), one), maxHi(hb, ha), true
	case hiSame:
		return minLo(lb, la), new(big.Int).Sub(maxLo(lb, la), one), true
	}
	return minLo(lb, la), maxHi(hb, ha), true
}

func isEmpty(lo, hi *big.Int) bool { return lo != nil && hi != nil && lo.Cmp(hi) > 0 }

func sameEnd(a, b *big.Int) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Cmp(b) == 0)
}

// minLo and maxLo compare lower ends (nil: unbounded below); minHi and
// maxHi upper ends (nil: unbounded above).
func minLo(a, b *big.Int) *big.Int { return looser(a, b, minInt) }
func maxLo(a, b *big.Int) *big.Int { return tighter(a, b, maxInt) }
func minHi(a, b *big.Int) *big.Int { return tighter(a, b, minInt) }
func maxHi(a, b *big.Int) *big.Int { return looser(a, b, maxInt) }

// tighter is pick of two ends, or the one that is bounded; looser is
// unbounded (nil) where either is.
func tighter(a, b *big.Int, pick func(x, y *big.Int) *big.Int) *big.Int {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return pick(a, b)
}

func looser(a, b *big.Int, pick func(x, y *big.Int) *big.Int) *big.Int {
	if a == nil || b == nil {
		return nil
	}
	return pick(a, b)
}

// restrictCounted is restrict of the counted changes' versions: a
// version not applicable in the band is absent there.
func (bd band) restrictCounted(counted []Counted, changed []policyset.Policy) []Counted {
	return mapCounted(counted, func(p policyset.Policy) (policyset.Policy, bool) { return bd.read(p, changed) })
}

// restrict is ps as they decide within the band: a policy whose range on
// the band's path misses it is left out, and one whose ranges hold all of
// it reads them as true. The changed versions are kept as they are.
func (bd band) restrict(ps, changed []policyset.Policy) []policyset.Policy {
	out := make([]policyset.Policy, 0, len(ps))
	for _, p := range ps {
		if q, keep := bd.read(p, changed); keep {
			out = append(out, q)
		}
	}
	return out
}

// read is p as it decides within the band (within), or a changed version
// as it is.
func (bd band) read(p policyset.Policy, changed []policyset.Policy) (policyset.Policy, bool) {
	if slices.ContainsFunc(changed, func(c policyset.Policy) bool { return decidesAlike(c, p) }) {
		return p, true
	}
	return bd.within(p)
}

// mapCounted is each counted change with its versions read by f: a
// version f does not keep is absent, and a change with no version left is
// left out. The organization's copy of a counted policy is the change's
// before version (review finds it by id), so f leaves it out of the
// organization alike, and no id is needed to take it out of the state.
func mapCounted(counted []Counted, f func(policyset.Policy) (policyset.Policy, bool)) []Counted {
	out := make([]Counted, 0, len(counted))
	for _, c := range counted {
		var r Counted
		if c.Before != nil {
			if q, keep := f(*c.Before); keep {
				r.Before = &q
			}
		}
		if c.After != nil {
			if q, keep := f(*c.After); keep {
				r.After = &q
			}
		}
		if r.Before != nil || r.After != nil {
			out = append(out, r)
		}
	}
	return out
}

// decidesAlike: a and b have the same decision fields (DecisionKey,
// without building it).
func decidesAlike(a, b policyset.Policy) bool {
	return a.Effect == b.Effect && a.Condition == b.Condition && a.Consensus == b.Consensus && a.Time == b.Time
}

// within is p read within the band; keep is false where p is not
// applicable anywhere in it.
func (bd band) within(p policyset.Policy) (policyset.Policy, bool) {
	c := conjunctsOfCondition(p)
	if !c.ok {
		return p, true
	}
	var kept []string
	dropped := false
	for i, s := range c.srcs {
		if g := c.guards[i]; g != nil && bd.strs[g.path] != nil {
			// Within the band the path takes one of v's values: the
			// guard holds for those it names.
			v := bd.strs[g.path]
			inter := slices.DeleteFunc(slices.Clone(g.vals), func(x string) bool { return !slices.Contains(v, x) })
			switch {
			case len(inter) == 0:
				return p, false
			case len(inter) == len(v):
				dropped = true
			default:
				// Named in part: kept as written. Narrowed to the band's
				// values it would read alike in more policies, but each
				// change would make texts of its own to read and compile,
				// which cost more than they saved (the lists shape).
				kept = append(kept, s)
			}
			continue
		}
		r := c.ranges[i]
		if r == nil || r.path != bd.path || bd.path == "" {
			kept = append(kept, s)
			continue
		}
		// Misses the band: r's values end below it or start above it.
		if (r.hi != nil && bd.lo != nil && r.hi.Cmp(bd.lo) < 0) || (r.lo != nil && bd.hi != nil && r.lo.Cmp(bd.hi) > 0) {
			return p, false
		}
		holdsAll := (r.lo == nil || (bd.lo != nil && r.lo.Cmp(bd.lo) <= 0)) && (r.hi == nil || (bd.hi != nil && r.hi.Cmp(bd.hi) >= 0))
		if holdsAll {
			dropped = true
			continue
		}
		kept = append(kept, s)
	}
	if !dropped {
		return p, true
	}
	p.Condition = strings.Join(kept, " && ")
	return p, true
}
