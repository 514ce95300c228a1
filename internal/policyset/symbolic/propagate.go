package symbolic

import "slices"

// propagate is unit propagation over cnf with the units given: it
// returns the clauses that are neither satisfied nor unit, each without
// its false literals, and every literal propagation sets; conflict when
// some clause has all its literals false. gophersat's own simplification
// restarts a pass over every clause at each unit it finds, which made
// parsing most of a question's cost; after this it finds none.
func propagate(cnf [][]lit, units []lit, nvars int) (reduced [][]lit, set []lit, conflict bool) {
	return propagateWith(indexOccurrences(cnf, nvars), cnf, units, nvars, nil)
}

// trail is propagation's working memory, which a circuit keeps across its
// solves (a question solves a dozen times over the same variables) so
// that each does not allocate its own.
type trail struct {
	value  []int8 // by variable: 1 true, -1 false, 0 unset
	set    []lit
	nfalse []int32 // by clause: how many of its literals are false
	inTail []bool  // by variable: in a clause past the occurrence index
	// reduced and buf are reduce's list and its shortened clauses.
	reduced [][]lit
	buf     []lit
}

// occurrences lists, for each literal, the clauses of cnf[:nclauses] it
// is in: one array, cut by start (literal l's list is at index l+nvars).
// A circuit keeps its index as clauses and variables are added (a
// question adds a few between its solves); propagation reads the clauses
// past the index one by one, and the circuit indexes again when they are
// many (staleOccurrences).
type occurrences struct {
	nvars, nclauses int
	start, occ      []int32
	fill            []int32 // build's cursor per literal
}

// staleOccurrences: more than this many clauses past the index, the
// circuit indexes them all again.
const staleOccurrences = 32

func indexOccurrences(cnf [][]lit, nvars int) *occurrences {
	x := new(occurrences)
	x.build(cnf, nvars)
	return x
}

// build indexes cnf in x's memory, which it reuses where large enough.
func (x *occurrences) build(cnf [][]lit, nvars int) {
	x.nvars, x.nclauses = nvars, len(cnf)
	x.start = resized(x.start, 2*nvars+2)
	for _, c := range cnf {
		for _, l := range c {
			x.start[int(l)+nvars+1]++
		}
	}
	for i := 1; i < len(x.start); i++ {
		x.start[i] += x.start[i-1]
	}
	x.occ = resized(x.occ, int(x.start[len(x.start)-1]))
	x.fill = append(x.fill[:0], x.start...)
	for i, c := range cnf {
		for _, l := range c {
			x.occ[x.fill[int(l)+nvars]] = int32(i)
			x.fill[int(l)+nvars]++
		}
	}
}

// resized is s with length n, zeroed, reusing its memory when it can.
func resized(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/2)
	}
	s = s[:n]
	clear(s)
	return s
}

// of lists the indexed clauses l is in; none for a variable newer than
// the index.
func (x *occurrences) of(l lit) []int32 {
	if abs(l) > x.nvars {
		return nil
	}
	i := int(l) + x.nvars
	return x.occ[x.start[i]:x.start[i+1]]
}

// propagateWith is propagate with a prefix of cnf's occurrences indexed,
// over nvars variables, in t's memory (nil: its own). The set returned is
// t's: it holds until t is used again.
func propagateWith(x *occurrences, cnf [][]lit, units []lit, nvars int, t *trail) (reduced [][]lit, set []lit, conflict bool) {
	if t == nil {
		t = new(trail)
	}
	if set, conflict = t.propagate(x, cnf, units, nvars); conflict {
		return nil, nil, true
	}
	return t.reduce(cnf), set, false
}

// valueOf is a literal's value on the trail: 1 true, -1 false, 0 unset.
func (t *trail) valueOf(l lit) int8 {
	if l > 0 {
		return t.value[l]
	}
	return -t.value[-l]
}

// propagate sets the units and what follows from them by unit
// propagation, on a cleared trail; the literals set, or a conflict.
func (t *trail) propagate(x *occurrences, cnf [][]lit, units []lit, nvars int) (set []lit, conflict bool) {
	// The memory grows with headroom: a question adds variables and
	// clauses between its solves.
	if cap(t.value) < nvars+1 {
		t.value = make([]int8, nvars+1, 2*nvars+2)
	}
	t.value = t.value[:nvars+1]
	clear(t.value)
	// set is also the queue: the literals from head on are still to be
	// propagated.
	if cap(t.set) < nvars {
		t.set = make([]lit, 0, 2*nvars)
	}
	set = t.set[:0]
	assign := func(l lit) bool {
		switch t.valueOf(l) {
		case 1:
			return true
		case -1:
			return false
		}
		if l > 0 {
			t.value[l] = 1
		} else {
			t.value[-l] = -1
		}
		set = append(set, l)
		return true
	}
	for _, u := range units {
		if !assign(u) {
			return nil, true
		}
	}
	for _, c := range cnf {
		if len(c) == 1 && !assign(c[0]) {
			return nil, true
		}
	}
	// Each clause counts its false literals, so that a long clause (one
	// of thousands of classes, or of a thousand policies' outcomes) is
	// read only once at most one of its literals is left, not each time
	// it loses one: that made propagation quadratic in a question over
	// 1,000 policies that all name the same address.
	if cap(t.nfalse) < len(cnf) {
		t.nfalse = make([]int32, len(cnf), 2*len(cnf))
	}
	nfalse := t.nfalse[:len(cnf)]
	clear(nfalse)
	// visit: clause i lost a literal; it may now be unit or empty. false
	// on a conflict.
	visit := func(i int) bool {
		if nfalse[i]++; int(nfalse[i]) < len(cnf[i])-1 {
			return true // two literals or more are not false
		}
		var free lit
		nfree, sat := 0, false
		for _, m := range cnf[i] {
			switch t.valueOf(m) {
			case 1:
				sat = true
			case 0:
				nfree++
				free = m
			}
			if sat {
				break
			}
		}
		switch {
		case sat:
			return true
		case nfree == 0:
			return false
		case nfree == 1:
			return assign(free)
		}
		return true
	}
	// The clauses past the index are few (staleOccurrences), but a scan
	// of them for each literal set was most of propagation's time: their
	// variables are marked, and only a marked variable's literals scan.
	if cap(t.inTail) < nvars+1 {
		t.inTail = make([]bool, nvars+1, 2*nvars+2)
	}
	inTail := t.inTail[:nvars+1]
	for _, c := range cnf[x.nclauses:] {
		for _, m := range c {
			inTail[abs(m)] = true
		}
	}
	defer func() {
		for _, c := range cnf[x.nclauses:] {
			for _, m := range c {
				inTail[abs(m)] = false
			}
		}
	}()
	for head := 0; head < len(set); head++ {
		l := set[head]
		for _, i := range x.of(-l) {
			if !visit(int(i)) {
				return nil, true
			}
		}
		if !inTail[abs(l)] {
			continue
		}
		for i := x.nclauses; i < len(cnf); i++ {
			if slices.Contains(cnf[i], -l) && !visit(i) {
				return nil, true
			}
		}
	}
	return set, false
}

// reduce lists the clauses the trail leaves open, without their false
// literals: a clause with none false is kept as it is (callers only read
// them). The list and the shortened clauses are in t's memory: they hold
// until t is used again.
func (t *trail) reduce(cnf [][]lit) (reduced [][]lit) {
	reduced, buf := t.reduced[:0], t.buf[:0]
	defer func() { t.reduced, t.buf = reduced, buf }()
	for _, c := range cnf {
		sat, nfalse := false, 0
		for _, m := range c {
			switch t.valueOf(m) {
			case 1:
				sat = true
			case -1:
				nfalse++
			}
			if sat {
				break
			}
		}
		switch {
		case sat || nfalse == len(c):
		case nfalse == 0:
			reduced = append(reduced, c)
		default:
			start := len(buf)
			for _, m := range c {
				if t.valueOf(m) == 0 {
					buf = append(buf, m)
				}
			}
			reduced = append(reduced, buf[start:len(buf):len(buf)])
		}
	}
	return reduced
}
