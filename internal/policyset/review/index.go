package review

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// reqIndex is a list of sampled requests indexed, per guard path asked
// for, by their value there, so that a change visits only the requests
// its versions can count for (see guard) instead of the whole sample.
type reqIndex struct {
	items  []sampled
	byPath map[string]*pathIndex
}

type pathIndex struct {
	ref     fieldRef
	byValue map[string][]int
	unknown []int // positions with no value there: never skipped
}

func newReqIndex(items []sampled) *reqIndex {
	return &reqIndex{items: items, byPath: map[string]*pathIndex{}}
}

// add appends a request, keeping the paths indexed so far up to date.
func (x *reqIndex) add(s sampled) {
	x.items = append(x.items, s)
	for _, pi := range x.byPath {
		pi.put(s, len(x.items)-1)
	}
}

func (pi *pathIndex) put(s sampled, i int) {
	if v, ok := reqValue(s.req, pi.ref); ok {
		pi.byValue[v] = append(pi.byValue[v], i)
	} else {
		pi.unknown = append(pi.unknown, i)
	}
}

func (x *reqIndex) path(g guard) *pathIndex {
	pi, ok := x.byPath[g.path]
	if !ok {
		pi = &pathIndex{ref: g.ref, byValue: map[string][]int{}}
		for i, s := range x.items {
			pi.put(s, i)
		}
		x.byPath[g.path] = pi
	}
	return pi
}

// positions adds to out the positions where one of ps may count, then
// sorts and deduplicates: the sample's order is the rows' order.
func (o *Org) positions(x *reqIndex, out []int, ps ...*policyset.Policy) []int {
	for _, p := range ps {
		if p == nil {
			continue
		}
		g, ok := o.guard(p.Condition)
		if !ok {
			for i := range x.items {
				out = append(out, i)
			}
			continue
		}
		pi := x.path(g)
		for _, v := range sortedKeys(g.vals) {
			out = append(out, pi.byValue[v]...)
		}
		out = append(out, pi.unknown...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	// The index looked at one guard of each policy; the others rule out
	// more (a guard all policies share finds every request).
	return slices.DeleteFunc(out, func(i int) bool { return !o.mayCountAny(x.items[i].req, ps...) })
}

// typePolicies indexes a type's policies by their guards, so that a
// request's base tally evaluates only those that can count for it.
type typePolicies struct {
	free    []int                       // no guard: every request
	byPath  map[string]map[string][]int // guard path -> value -> policies
	anyPath map[string][]int            // guard path -> all its policies
	refs    map[string]fieldRef
}

func (o *Org) typeIndex(typ string) *typePolicies {
	if tp, ok := o.polIndex[typ]; ok {
		return tp
	}
	tp := &typePolicies{byPath: map[string]map[string][]int{}, anyPath: map[string][]int{}, refs: map[string]fieldRef{}}
	for _, i := range o.byType[typ] {
		g, ok := o.guard(o.policies[i].Condition)
		if !ok {
			tp.free = append(tp.free, i)
			continue
		}
		if tp.byPath[g.path] == nil {
			tp.byPath[g.path] = map[string][]int{}
		}
		for v := range g.vals {
			tp.byPath[g.path][v] = append(tp.byPath[g.path][v], i)
		}
		tp.anyPath[g.path] = append(tp.anyPath[g.path], i)
		tp.refs[g.path] = g.ref
	}
	o.polIndex[typ] = tp
	return tp
}

// countable are the type's policies that can count for the request, by
// every guard of each (see candidates).
func (o *Org) countable(req policyset.Request) []int {
	return slices.DeleteFunc(o.typeIndex(req.Type).candidates(req), func(i int) bool { return !o.mayCount(&o.policies[i], req) })
}

// candidates are the type's policies the index, by one guard of each,
// cannot rule out for the request; a policy guarded by several values of
// one path is listed once per value the request can have, which is one.
func (tp *typePolicies) candidates(req policyset.Request) []int {
	out := slices.Clone(tp.free)
	for p, byValue := range tp.byPath {
		if v, ok := reqValue(req, tp.refs[p]); ok {
			out = append(out, byValue[v]...)
		} else {
			out = append(out, tp.anyPath[p]...)
		}
	}
	return out
}

// movable are the positions of the view where one of ps may count: the
// only requests whose tally a change of ps can move. In sample order.
func (o *Org) movable(v view, ps ...*policyset.Policy) []int {
	out := o.positions(v.base.idx, nil, ps...)
	for j, s := range v.extra {
		if slices.ContainsFunc(ps, func(p *policyset.Policy) bool { return o.mayCount(p, s.req) }) {
			out = append(out, len(v.base.sampled)+j)
		}
	}
	return out
}
