package symbolic

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestIntCmpByTheLadder: every comparison by the ladder holds in exactly
// the classes whose lower end satisfies it (cmpHolds), over random
// constants, with classes cut as intClasses cuts them and with intervals
// repeated (as time.now's are, cut by CronSpans).
func TestIntCmpByTheLadder(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 6))
	for round := range 200 {
		var consts []*big.Int
		for range 1 + r.IntN(6) {
			consts = append(consts, big.NewInt(int64(r.IntN(40))-5))
		}
		ints := intClasses(consts, big.NewInt(-10), big.NewInt(50))
		if round%2 == 1 {
			// Each interval repeated a random number of times, in order.
			var rep []intClass
			for _, cl := range ints {
				for range 1 + r.IntN(3) {
					rep = append(rep, cl)
				}
			}
			ints = rep
		}
		e := newEncoder(diffType, newDomains(), requestModel{}, nil)
		s := &scalar{ints: ints, classes: e.oneHot(len(ints))}
		n := big.NewInt(int64(r.IntN(60)) - 10)
		for _, op := range []string{"<", "<=", ">", ">=", "==", "!="} {
			l := e.intCmp(s, op, n)
			for j, cl := range ints {
				ans, _ := e.c.solve(s.classes[j], l)
				if got, want := ans == sat, cmpHolds(cl.lo, op, n); got != want {
					t.Fatalf("round %d: class %d [%s, %s] %s %s: the ladder says %v, cmpHolds %v", round, j, cl.lo, cl.hi, op, n, got, want)
				}
			}
		}
	}
}

// cmpHolds tells whether v op c: what the encoding asked of each class
// before the ladder, the ladder's oracle.
func cmpHolds(v *big.Int, op string, c *big.Int) bool {
	d := v.Cmp(c)
	switch op {
	case "==":
		return d == 0
	case "!=":
		return d != 0
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	}
	return d >= 0
}
