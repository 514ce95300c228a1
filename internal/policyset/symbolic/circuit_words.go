package symbolic

import "math/big"

// word is an unsigned integer of the circuit, its least significant bit
// first: the counts of a list's classes (count_classes.go) are sums of
// such words, compared with constants.
type word []lit

// freshWord is a free unsigned integer of width bits.
func (c *circuit) freshWord(width int) word {
	w := make(word, width)
	for i := range w {
		w[i] = c.fresh()
	}
	return w
}

// xor is a literal equivalent to a != b.
func (c *circuit) xor(a, b lit) lit { return c.or(c.and(a, -b), c.and(-a, b)) }

// add is a + b, one bit longer than the longer of them, so that it never
// overflows.
func (c *circuit) add(a, b word) word {
	n := max(len(a), len(b))
	out := make(word, 0, n+1)
	carry := litFalse
	for i := range n {
		x, y := bitOf(a, i), bitOf(b, i)
		s := c.xor(x, y)
		out = append(out, c.xor(s, carry))
		carry = c.or(c.and(x, y), c.and(s, carry))
	}
	return append(out, carry)
}

func bitOf(w word, i int) lit {
	if i < len(w) {
		return w[i]
	}
	return litFalse
}

// popcount is how many of ls hold, as a word: a tree of adders, whose
// size is linear in len(ls).
func (c *circuit) popcount(ls []lit) word {
	if len(ls) == 0 {
		return nil
	}
	ws := make([]word, len(ls))
	for i, l := range ls {
		ws[i] = word{l}
	}
	for len(ws) > 1 {
		next := make([]word, 0, (len(ws)+1)/2)
		for i := 0; i+1 < len(ws); i += 2 {
			next = append(next, c.add(ws[i], ws[i+1]))
		}
		if len(ws)%2 == 1 {
			next = append(next, ws[len(ws)-1])
		}
		ws = next
	}
	return ws[0]
}

// wordAtLeast is a literal equivalent to w >= n. From the least
// significant bit up: where n has a one, w needs it and the rest at
// least n's rest; where n has a zero, w's one settles it, or the rest
// does.
func (c *circuit) wordAtLeast(w word, n *big.Int) lit {
	switch {
	case n.Sign() <= 0:
		return litTrue
	case n.BitLen() > len(w):
		return litFalse
	}
	ge := litTrue
	for i, b := range w {
		if n.Bit(i) == 1 {
			ge = c.and(b, ge)
		} else {
			ge = c.or(b, ge)
		}
	}
	return ge
}

// wordValue is w's value in a model.
func wordValue(model []bool, w word) *big.Int {
	v := new(big.Int)
	for i := len(w) - 1; i >= 0; i-- {
		v.Lsh(v, 1)
		if modelValue(model, w[i]) {
			v.SetBit(v, 0, 1)
		}
	}
	return v
}
