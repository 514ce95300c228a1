package symbolic

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
)

// countCmp is a count compared with a constant k (or found in a list of
// them, each as ==). A count whose k+1 elements the list's slots hold
// (domains.exactCount) is decided over the slots. A larger one is a
// variable per threshold n, "at least n" (boundedAtLeast). Where its list
// is counted by class (count_classes.go), each is tied to the count's sum
// and the count is decided; elsewhere it is held only to what a
// request's sublist allows, and over-approximated: the witness's list is
// grown until the count is what the model says (padCounts), and a witness
// that does not replay makes its question "not proved", naming it.
func (e *encoder) countCmp(f *form) value {
	kept, err := e.kept(f.left.list)
	consts, op := []*term{f.right}, f.cmp
	if op == "in" {
		consts, op = f.right.elems, "=="
	}
	var b *countBound
	vs := make([]lit, 0, len(consts))
	for _, t := range consts {
		k, ok := constInt(t)
		if !ok || !inLanguageRange(k) {
			return value{litFalse, litTrue}
		}
		exact := e.d.exactCount(f.left.list.path.gen, k)
		ge := func(n *big.Int) lit {
			switch {
			case n.Sign() <= 0:
				return litTrue
			case exact && n.IsInt64() && n.Int64() <= int64(len(kept)):
				return e.c.atLeast(kept, int(n.Int64()))
			}
			if b == nil {
				e.overs[countWhy(f)] = true
				b = e.bound(f.left.list, kept)
			}
			return e.boundedAtLeast(b, n)
		}
		vs = append(vs, e.countHolds(op, k, ge))
	}
	return value{e.c.or(vs...), err}
}

// countHolds is "count op k", given ge(n), "the count is at least n".
func (e *encoder) countHolds(op string, k *big.Int, ge func(n *big.Int) lit) lit {
	k1 := new(big.Int).Add(k, one)
	switch op {
	case ">=":
		return ge(k)
	case ">":
		return ge(k1)
	case "<=":
		return -ge(k1)
	case "<":
		return -ge(k)
	case "==":
		return e.c.and(ge(k), -ge(k1))
	}
	return -e.c.and(ge(k), -ge(k1)) // !=
}

// countWhy names a bounded count for "not proved".
func countWhy(f *form) string {
	return fmt.Sprintf("the count %s (past the %d list elements decided exactly)", formText(f), countSlots)
}

// countBound is a bounded count's list: its concrete path, its slots,
// which slots count (its filters keep them), and the variable "at least
// n counted" of each threshold n asked, by n.
type countBound struct {
	path, gen string
	active    []lit
	kept      []lit
	at        []threshold
	// sum is the count as a word where its list is counted by class
	// (count_classes.go): each threshold up to width bits is tied to it.
	sum   word
	width int
}

type threshold struct {
	n *big.Int
	l lit
}

// bound is the countBound of l as the bound variables now stand: one
// list, one set of filters, one binding of the variables they read.
func (e *encoder) bound(l *listRef, kept []lit) *countBound {
	p := e.concrete(l.path.path)
	var key strings.Builder
	key.WriteString(p + "|")
	writeList(&key, l, map[string]string{})
	for _, id := range slices.Sorted(maps.Keys(e.env)) {
		key.WriteString("|" + id + "=" + e.env[id])
	}
	b, ok := e.bounds[key.String()]
	if !ok {
		b = &countBound{path: p, gen: l.path.gen, active: e.slots(p, l.path.gen).active, kept: kept}
		e.bounds[key.String()] = b
	}
	return b
}

// boundedAtLeast is the variable "at least n of b's elements count", held
// to what holds of every request's model (the sublist of collect.go, as
// long as the slots allow): at least n means some slot counts and the
// list fills min(n, slots) slots; fewer than n means fewer than n of the
// slots count; and the thresholds are ordered.
func (e *encoder) boundedAtLeast(b *countBound, n *big.Int) lit {
	i, found := slices.BinarySearchFunc(b.at, n, func(t threshold, n *big.Int) int { return t.n.Cmp(n) })
	if found {
		return b.at[i].l
	}
	c := e.c
	l := c.fresh()
	c.clause(-l, c.or(b.kept...))
	if len(b.active) > 0 {
		filled := len(b.active)
		if n.IsInt64() && n.Int64() < int64(filled) {
			filled = int(n.Int64())
		}
		c.clause(-l, b.active[filled-1])
	}
	if n.IsInt64() && n.Int64() <= int64(len(b.kept)) {
		c.clause(l, -c.atLeast(b.kept, int(n.Int64())))
	}
	if i > 0 {
		c.clause(-l, b.at[i-1].l)
	}
	if i < len(b.at) {
		c.clause(-b.at[i].l, l)
	}
	if b.sum != nil && n.BitLen() <= b.width {
		c.iff(l, c.wordAtLeast(b.sum, n))
	}
	b.at = slices.Insert(b.at, i, threshold{n: n, l: l})
	return l
}

// need is the largest threshold the model says the count reaches, nil
// where it reaches none.
func (b *countBound) need(model []bool) *big.Int {
	for i := len(b.at) - 1; i >= 0; i-- {
		if modelValue(model, b.at[i].l) {
			return b.at[i].n
		}
	}
	return nil
}
