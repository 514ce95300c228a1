package review

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// countedIndex finds, for a request first judged, the counted changes
// that can move its most permissive tally: those one of whose versions
// may count for it (see guard). The others swap an outcome that counts
// nothing for another, so skipping them changes no tally.
type countedIndex struct {
	free    []int                       // a version without a guard
	byPath  map[string]map[string][]int // guard path -> value -> changes
	anyPath map[string][]int
	refs    map[string]fieldRef
}

func newCountedIndex() *countedIndex {
	return &countedIndex{byPath: map[string]map[string][]int{}, anyPath: map[string][]int{}, refs: map[string]fieldRef{}}
}

// add indexes o.counted[i].
func (o *Org) indexCounted(i int) {
	x, ch := o.countedIdx, o.counted[i]
	var gs []guard
	for _, p := range []*policyset.Policy{ch.before, ch.after} {
		if p == nil {
			continue // an absent version counts for nothing
		}
		g, ok := o.guard(p.Condition)
		if !ok {
			x.free = append(x.free, i)
			return
		}
		gs = append(gs, g)
	}
	for _, g := range gs {
		if x.byPath[g.path] == nil {
			x.byPath[g.path] = map[string][]int{}
		}
		for v := range g.vals {
			x.byPath[g.path][v] = append(x.byPath[g.path][v], i)
		}
		x.anyPath[g.path] = append(x.anyPath[g.path], i)
		x.refs[g.path] = g.ref
	}
}

// countedFor are the positions in o.counted of the changes that may move
// the request's tally, in order.
func (o *Org) countedFor(req policyset.Request) []int {
	x := o.countedIdx
	out := slices.Clone(x.free)
	for p, byValue := range x.byPath {
		if v, ok := reqValue(req, x.refs[p]); ok {
			out = append(out, byValue[v]...)
		} else {
			out = append(out, x.anyPath[p]...)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(i int) bool {
		ch := o.counted[i]
		return !o.mayCountAny(req, ch.before, ch.after)
	})
}
