package review

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// guardIndex files numbered items (policies of a type, counted changes) by
// the guard each is filed under, so that a request finds the items that
// guard does not rule out without visiting all of them. The caller still
// checks every guard of what it finds (mayCount): an item is filed under
// one.
type guardIndex struct {
	free    []int                       // items without a guard: every request
	byPath  map[string]map[string][]int // guard path -> value -> items
	anyPath map[string][]int            // guard path -> all its items
	refs    map[string]fieldRef
}

func newGuardIndex() *guardIndex {
	return &guardIndex{byPath: map[string]map[string][]int{}, anyPath: map[string][]int{}, refs: map[string]fieldRef{}}
}

// file files item i under g.
func (x *guardIndex) file(g guard, i int) {
	if x.byPath[g.path] == nil {
		x.byPath[g.path] = map[string][]int{}
	}
	for v := range g.vals {
		x.byPath[g.path][v] = append(x.byPath[g.path][v], i)
	}
	x.anyPath[g.path] = append(x.anyPath[g.path], i)
	x.refs[g.path] = g.ref
}

// candidates are the items whose guard does not rule the request out; an
// item guarded by several values of one path is listed once per value the
// request can have, which is one. Unsorted.
func (x *guardIndex) candidates(req policyset.Request) []int {
	out := slices.Clone(x.free)
	for p, byValue := range x.byPath {
		if v, ok := reqValue(req, x.refs[p]); ok {
			out = append(out, byValue[v]...)
		} else {
			out = append(out, x.anyPath[p]...)
		}
	}
	return out
}
