package symbolic

import (
	"maps"
	"math/big"
	"math/bits"
	"slices"
)

// maxCountedFilters bounds the counts of one list, each with its filter,
// that are counted by class: m of them have 2^m - 1 classes, each of
// which takes a slot for an element of it.
const maxCountedFilters = 3

// countClasses count a list's elements by class. A class is which of the
// list's counts an element counts for: with a count of the list and a
// count of those that are 'a', an element is counted by both, by the
// first only, or by neither. A request's list is then its slots and, for
// each class some slot is of, any number of further elements of that
// class: each count is its slots' count plus the further elements of
// the classes it counts, a sum of integers compared with its thresholds.
// Every request's list is one of these (keep one element of each class
// it has in the slots, the rest are further elements of their class), and
// each of these is a request (the further elements are copies of their
// class's slot), so every count is decided, of any size, and counts of
// one list with different filters are decided together.
//
// The classes are those of the counts as encoded: one list counted under
// two bindings of a variable (approvers.all(u, l.count(x, x == u.id) >
// 100)) is two counts. A list whose counts are more than its slots'
// classes allow stays bounded (count.go), as do the approvers, who are
// distinct users and whose copies are not.
type countClasses struct {
	bounds []*countBound
	// classes are the bit sets over bounds that further elements may be
	// of, each with its number of them and the slots of it.
	classes []int
	further []word
	of      [][]lit
}

// classCounts counts by class each list whose counts domains set aside
// for it (collect.go), once every policy is encoded. A count asked
// later (a region's atom) is one of these counts, at a threshold they
// were encoded with or not: boundedAtLeast ties it then.
func (e *encoder) classCounts() {
	byPath := map[string][]*countBound{}
	for _, k := range slices.Sorted(maps.Keys(e.bounds)) {
		b := e.bounds[k]
		byPath[b.path] = append(byPath[b.path], b)
	}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		bs := byPath[p]
		m, ok := e.d.classed[bs[0].gen]
		if !ok || len(bs) > m || e.classes[p] != nil {
			continue
		}
		e.classes[p] = e.countByClass(bs)
	}
}

func (e *encoder) countByClass(bs []*countBound) *countClasses {
	c := e.c
	// Further elements of a class are as many as the largest threshold
	// needs: a request with more is decided alike with that many.
	width := 0
	for _, b := range bs {
		for _, t := range b.at {
			width = max(width, t.n.BitLen())
		}
	}
	full := litTrue
	if active := bs[0].active; len(active) > 0 {
		full = active[len(active)-1]
	}
	sums := make([]word, len(bs))
	for j, b := range bs {
		sums[j] = c.popcount(b.kept)
	}
	cl := &countClasses{bounds: bs}
	for class := 1; class < 1<<len(bs); class++ {
		of := make([]lit, len(bs[0].kept))
		for i := range of {
			counted := make([]lit, len(bs))
			for j, b := range bs {
				counted[j] = b.kept[i]
				if class>>j&1 == 0 {
					counted[j] = -counted[j]
				}
			}
			of[i] = c.and(counted...)
		}
		further := c.freshWord(width)
		// Further elements come after the slots, which they fill first,
		// so that an index past the slots still errs where the model says.
		some := c.or(further...)
		c.clause(-some, c.or(of...))
		c.clause(-some, full)
		cl.classes = append(cl.classes, class)
		cl.further = append(cl.further, further)
		cl.of = append(cl.of, of)
		for j := range bs {
			if class>>j&1 == 1 {
				sums[j] = c.add(sums[j], further)
			}
		}
	}
	for j, b := range bs {
		b.sum, b.width = sums[j], width
		for _, t := range b.at {
			c.iff(t.l, c.wordAtLeast(b.sum, t.n))
		}
	}
	return cl
}

// furtherElements are, by class, how many elements a witness appends to
// the list: the model's numbers, lowered while every count keeps the
// largest threshold the model says it reaches. The classes that count
// for fewer counts are lowered first, so that one element serves as many
// counts as it can. Each class kept is then needed by some count at its
// threshold, so none is larger than the largest threshold.
func (cl *countClasses) furtherElements(model []bool, inList int) []*big.Int {
	sums := make([]*big.Int, len(cl.bounds))
	for j, b := range cl.bounds {
		sums[j] = big.NewInt(0)
		for i, k := range b.kept {
			if i < inList && modelValue(model, k) {
				sums[j].Add(sums[j], one)
			}
		}
	}
	n := make([]*big.Int, len(cl.classes))
	for t, class := range cl.classes {
		n[t] = wordValue(model, cl.further[t])
		for j := range cl.bounds {
			if class>>j&1 == 1 {
				sums[j].Add(sums[j], n[t])
			}
		}
	}
	order := slices.Clone(cl.classes)
	slices.SortStableFunc(order, func(a, b int) int { return bits.OnesCount(uint(a)) - bits.OnesCount(uint(b)) })
	for _, class := range order {
		t := slices.Index(cl.classes, class)
		lower := new(big.Int).Set(n[t])
		for j, b := range cl.bounds {
			if class>>j&1 == 0 {
				continue
			}
			spare := new(big.Int).Set(sums[j])
			if need := b.need(model); need != nil {
				spare.Sub(spare, need)
			}
			if spare.Cmp(lower) < 0 {
				lower = spare
			}
		}
		if lower.Sign() <= 0 {
			continue
		}
		n[t].Sub(n[t], lower)
		for j := range cl.bounds {
			if class>>j&1 == 1 {
				sums[j].Sub(sums[j], lower)
			}
		}
	}
	return n
}

// slotOf is a slot of the class's in the model, among the first inList;
// -1 if none is.
func (cl *countClasses) slotOf(model []bool, t, inList int) int {
	for i, l := range cl.of[t] {
		if i < inList && modelValue(model, l) {
			return i
		}
	}
	return -1
}
