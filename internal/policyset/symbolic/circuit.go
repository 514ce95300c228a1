package symbolic

import (
	"encoding/binary"
	"slices"
	"sync"
)

// A lit is a literal of the circuit, DIMACS style: variable v true is v,
// false is -v. Variable 1 is the constant true, so litTrue and litFalse
// are literals like any other and simplify away where they meet a gate.
type lit = int32

const (
	litTrue  lit = 1
	litFalse lit = -1
)

// circuit is a Tseitin encoding under construction: gates are hash-consed,
// so an atom that many policies share is one variable, and a policy's
// gates are built once for every question asked of it.
type circuit struct {
	nvars int
	cnf   [][]lit // the clauses, each normalized: sorted, no duplicate, no literal beside its negation
	gates map[string]lit
	occ   *occurrences // the occurrences of a prefix of the clauses (staleOccurrences)
	last  []bool       // the last model found
	trail trail        // propagation's memory, reused by each solve
	slab  []lit        // the free end of the slab clauses are cut from
	// slabSize is the size of the last slab cut.
	slabSize int
	// spareOcc is a released circuit's index, whose memory the first
	// indexing reuses.
	spareOcc *occurrences
	// whyNot is why the last solve answered timedOut.
	whyNot string
	// budget bounds its searches with those of other questions (nil:
	// QueryGuard alone).
	budget *Budget
}

func newCircuit() *circuit {
	c := &circuit{nvars: 1, gates: map[string]lit{}}
	if m, ok := spareCircuits.Get().(*circuitMemory); ok {
		c.cnf, c.trail, c.spareOcc = m.cnf, m.trail, m.occ
	}
	c.cnf = append(c.cnf, []lit{litTrue})
	return c
}

// circuitMemory is what a released circuit leaves for the next one: its
// clause list, propagation memory and occurrence index, emptied. A
// report builds a circuit per change, and growing these again each time
// was a fifth of the review's allocation (the clause list alone 13%).
type circuitMemory struct {
	cnf   [][]lit
	trail trail
	occ   *occurrences
}

var spareCircuits sync.Pool

// release gives the circuit's memory to the next circuit; the circuit
// must not be used after (its fields are zeroed). Models it returned are
// the caller's and stay valid.
func (c *circuit) release() {
	clear(c.cnf) // the slabs go to the GC
	clear(c.trail.reduced[:cap(c.trail.reduced)])
	occ := c.occ
	if occ == nil {
		occ = c.spareOcc
	}
	spareCircuits.Put(&circuitMemory{cnf: c.cnf[:0], trail: c.trail, occ: occ})
	*c = circuit{}
}

// fresh is a new unconstrained variable.
func (c *circuit) fresh() lit {
	c.nvars++
	return lit(c.nvars)
}

// clause adds the disjunction of ls. A clause holding a literal and its
// negation, or true, is dropped (gophersat is never handed one). Clauses
// are cut from slabs: a question adds thousands of two- and three-literal
// clauses, each otherwise its own allocation.
func (c *circuit) clause(ls ...lit) {
	if cap(c.slab)-len(c.slab) < len(ls)+1 {
		// Slabs double up to clauseSlab: most questions' circuits are a
		// few hundred literals, and a first slab of the full size was
		// a fifth of the review's allocation.
		c.slabSize = min(max(2*c.slabSize, firstClauseSlab), clauseSlab)
		c.slab = make([]lit, 0, max(c.slabSize, len(ls)+1))
	}
	free := c.slab[len(c.slab):]
	out, ok := normalizeInto(free[:0], ls, litFalse)
	if !ok {
		return
	}
	if len(out) == 0 {
		out = append(out, litFalse)
	}
	c.slab = c.slab[:len(c.slab)+len(out)]
	c.cnf = append(c.cnf, out[:len(out):len(out)])
}

// clauseSlab is how many literals a slab of clauses holds at most;
// firstClauseSlab, a circuit's first.
const (
	clauseSlab      = 1024
	firstClauseSlab = 128
)

// normalize drops absorbing-neutral constants and duplicates; ok is false
// when the set holds absorbing (or a literal and its negation), i.e. the
// disjunction (neutral = false) is true or the conjunction (neutral =
// true) is false.
func normalize(ls []lit, neutral lit) ([]lit, bool) {
	return normalizeInto(make([]lit, 0, len(ls)), ls, neutral)
}

// normalizeInto is normalize, appending to out (which it sorts whole).
func normalizeInto(out []lit, ls []lit, neutral lit) ([]lit, bool) {
	for _, l := range ls {
		switch l {
		case neutral:
			continue
		case -neutral:
			return nil, false
		}
		out = append(out, l)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	for i := 1; i < len(out); i++ {
		// Sorted, so -v sorts before v only when both are present with
		// -v < 0 < v: look each negative up.
		if out[i-1] < 0 {
			if _, found := slices.BinarySearch(out, -out[i-1]); found {
				return nil, false
			}
		}
	}
	return out, true
}

// and is a literal equivalent to the conjunction of ls.
func (c *circuit) and(ls ...lit) lit {
	in, ok := normalize(ls, litTrue)
	switch {
	case !ok:
		return litFalse
	case len(in) == 0:
		return litTrue
	case len(in) == 1:
		return in[0]
	}
	key := gateKey('&', in)
	if g, ok := c.gates[key]; ok {
		return g
	}
	g := c.fresh()
	long := make([]lit, 0, len(in)+1)
	for _, l := range in {
		c.clause(-g, l)
		long = append(long, -l)
	}
	c.clause(append(long, g)...)
	c.gates[key] = g
	return g
}

// or is a literal equivalent to the disjunction of ls.
func (c *circuit) or(ls ...lit) lit {
	neg := make([]lit, len(ls))
	for i, l := range ls {
		neg[i] = -l
	}
	return -c.and(neg...)
}

func (c *circuit) implies(a, b lit) lit { return c.or(-a, b) }

// iff requires a and b to be equal (a constraint, not a gate).
func (c *circuit) iff(a, b lit) {
	c.clause(-a, b)
	c.clause(a, -b)
}

// atLeast is a literal equivalent to "at least k of ls hold", a
// pseudo-boolean constraint in both directions: counts over symmetric
// approver slots stay native, where a CNF cardinality encoding would
// invite pigeonhole blow-ups.
func (c *circuit) atLeast(ls []lit, k int) lit {
	var in []lit
	for _, l := range ls {
		switch l {
		case litTrue:
			k--
		case litFalse:
		default:
			in = append(in, l)
		}
	}
	// A literal beside its negation counts exactly one; gophersat is
	// handed neither that nor a repeated literal (the gates of distinct
	// slots are distinct, so repeats do not arise).
	slices.Sort(in)
	for i := 0; i < len(in); i++ {
		if in[i] < 0 {
			if j, found := slices.BinarySearch(in, -in[i]); found {
				k--
				in = slices.Delete(in, j, j+1)
				in = slices.Delete(in, i, i+1)
				i--
			}
		}
	}
	switch {
	case k <= 0:
		return litTrue
	case k > len(in):
		return litFalse
	case k == 1:
		return c.or(in...)
	case k == len(in):
		return c.and(in...)
	}
	key := gateKey('#', append([]lit{lit(k)}, in...))
	if g, ok := c.gates[key]; ok {
		return g
	}
	g := c.counter(in, k)
	c.gates[key] = g
	return g
}

// counter is a literal equivalent to "at least k of ls", as a sequential
// counter in clauses: s[i][j] says at least j of the first i hold. Both
// directions are encoded, so the literal may be negated. (gophersat's
// native pseudo-boolean constraints were tried first: v1.4.0 answers
// UNSAT to satisfiable problems that mix them with unit assumptions, which
// would be a false "no change".)
func (c *circuit) counter(ls []lit, k int) lit {
	prev := make([]lit, k+1) // prev[j]: at least j of the first i
	prev[0] = litTrue
	for j := 1; j <= k; j++ {
		prev[j] = litFalse
	}
	for _, l := range ls {
		cur := make([]lit, k+1)
		cur[0] = litTrue
		for j := 1; j <= k; j++ {
			// at least j of the first i+1: at least j of the first i, or
			// at least j-1 of them and this one.
			cur[j] = c.or(prev[j], c.and(prev[j-1], l))
		}
		prev = cur
	}
	return prev[k]
}

// exactlyOne constrains ls to exactly one true.
func (c *circuit) exactlyOne(ls []lit) {
	c.clause(ls...)
	c.atMostOne(ls)
}

// atMostOne constrains ls to at most one true: pairwise for a few,
// else with a running "one seen so far" literal.
func (c *circuit) atMostOne(ls []lit) {
	if len(ls) <= 6 {
		for i := range ls {
			for j := i + 1; j < len(ls); j++ {
				c.clause(-ls[i], -ls[j])
			}
		}
		return
	}
	seen := ls[0]
	for _, l := range ls[1:] {
		c.clause(-seen, -l)
		next := c.fresh()
		c.clause(-seen, next)
		c.clause(-l, next)
		seen = next
	}
}

func gateKey(op byte, ls []lit) string {
	// The literals as varints after the operator: one allocation, the
	// key's own, where decimal text took one per literal.
	var small [64]byte
	b := append(small[:0], op)
	for _, l := range ls {
		b = binary.AppendVarint(b, int64(l))
	}
	return string(b)
}
