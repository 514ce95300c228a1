package review

import (
	"maps"
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
		for _, v := range slices.Sorted(maps.Keys(g.vals)) {
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

// typeIndex files a type's policies by their guards, so that a request's
// base tally evaluates only those that can count for it.
func (o *Org) typeIndex(typ string) *guardIndex {
	if x, ok := o.polIndex[typ]; ok {
		return x
	}
	x := newGuardIndex()
	for _, i := range o.byType[typ] {
		if g, ok := o.guard(o.policies[i].Condition); ok {
			x.file(g, i)
		} else {
			x.free = append(x.free, i)
		}
	}
	o.polIndex[typ] = x
	return x
}

// countable are the type's policies that can count for the request, by
// every guard of each.
func (o *Org) countable(req policyset.Request) []int {
	return slices.DeleteFunc(o.typeIndex(req.Type).candidates(req), func(i int) bool { return !o.mayCount(&o.policies[i], req) })
}

// movable are the positions of the view where one of ps may count: the
// only requests whose tally a change of ps can move. In sample order.
func (o *Org) movable(v view, ps ...*policyset.Policy) []int {
	out := o.positions(v.base.idx, nil, ps...)
	for j, s := range v.extra {
		if o.mayCountAny(s.req, ps...) {
			out = append(out, len(v.base.sampled)+j)
		}
	}
	return out
}
