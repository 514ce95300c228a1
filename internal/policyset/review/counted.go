package review

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// indexCounted files o.counted[i] in o.countedIdx, which finds, for a
// request first judged, the counted changes that can move its most
// permissive tally: those one of whose versions may count for it (see
// guard). The others swap an outcome that counts nothing for another, so
// skipping them changes no tally.
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
		x.file(g, i)
	}
}

// countedFor are the positions in o.counted of the changes that may move
// the request's tally, in order.
func (o *Org) countedFor(req policyset.Request) []int {
	out := o.countedIdx.candidates(req)
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(i int) bool {
		ch := o.counted[i]
		return !o.mayCountAny(req, ch.before, ch.after)
	})
}
