package symbolic

import (
	"math/big"
	"sort"
)

// An integer scalar's classes are sorted by their lower ends (time.now's
// may repeat an interval, cut by the CronSpans that hold in it), and each
// comparison with a constant holds of whole classes: so "v <= n" holds of
// a prefix of them and "v > n" of a suffix. With the ladder, "the class
// is the kth or later", each such comparison is one literal, where the
// disjunction of its classes took a gate as wide as the prefix. A plan
// whose policies share a field (one destination, many limits) compares
// it with every policy's limit in every question: the ladder makes that
// linear in the limits instead of quadratic.

// intCmp is "s op n" (op one of the orderings, == or !=): the classes
// whose lower end satisfies it, by the ladder.
func (e *encoder) intCmp(s *scalar, op string, n *big.Int) lit {
	m := len(s.ints)
	first := sort.Search(m, func(i int) bool { return s.ints[i].lo.Cmp(n) >= 0 }) // first lo >= n
	after := sort.Search(m, func(i int) bool { return s.ints[i].lo.Cmp(n) > 0 })  // first lo > n
	switch op {
	case "<":
		return -e.atOrAbove(s, first)
	case "<=":
		return -e.atOrAbove(s, after)
	case ">":
		return e.atOrAbove(s, after)
	case ">=":
		return e.atOrAbove(s, first)
	case "==":
		return e.c.or(s.classes[first:after]...)
	case "!=":
		return -e.c.or(s.classes[first:after]...)
	}
	return litFalse
}

// atOrAbove is the ladder's literal "the class is the kth or later",
// built for the whole scalar the first time one is asked: each rung is
// the kth class or the rung above.
func (e *encoder) atOrAbove(s *scalar, k int) lit {
	m := len(s.classes)
	switch {
	case k <= 0:
		return litTrue
	case k >= m:
		return litFalse
	}
	if s.ladder == nil {
		s.ladder = make([]lit, m)
		s.ladder[m-1] = s.classes[m-1]
		for i := m - 2; i >= 1; i-- {
			s.ladder[i] = e.c.or(s.classes[i], s.ladder[i+1])
		}
	}
	return s.ladder[k]
}
