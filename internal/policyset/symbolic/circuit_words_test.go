package symbolic

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestWordArithmetic: the popcount of random literals, a sum of it with
// a free word, and each comparison with a constant are what integers say,
// for every value of the inputs fixed by assumptions.
func TestWordArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 5))
	for round := range 40 {
		c := newCircuit()
		ins := make([]lit, 1+r.IntN(6))
		for i := range ins {
			ins[i] = c.fresh()
		}
		x := c.freshWord(1 + r.IntN(4))
		sum := c.add(c.popcount(ins), x)
		n := big.NewInt(int64(r.IntN(24)))
		ge := c.wordAtLeast(sum, n)
		for range 16 {
			var assume []lit
			want := int64(0)
			for _, l := range ins {
				if r.IntN(2) == 0 {
					assume = append(assume, l)
					want++
				} else {
					assume = append(assume, -l)
				}
			}
			xv := int64(r.IntN(1 << len(x)))
			for i, b := range x {
				if xv>>i&1 == 1 {
					assume = append(assume, b)
				} else {
					assume = append(assume, -b)
				}
			}
			want += xv
			ans, model := c.solve(assume...)
			if ans != sat {
				t.Fatalf("round %d: inputs fixed, yet %v", round, ans)
			}
			if got := wordValue(model, sum); got.Int64() != want {
				t.Fatalf("round %d: the sum is %s, want %d", round, got, want)
			}
			if got := modelValue(model, ge); got != (want >= n.Int64()) {
				t.Fatalf("round %d: %d >= %s says %v", round, want, n, got)
			}
		}
	}
}
