package symbolic

import "slices"

// propagate is unit propagation over cnf with the units given: it
// returns the clauses that are neither satisfied nor unit, each without
// its false literals, and every literal propagation sets; conflict when
// some clause has all its literals false. gophersat's own simplification
// restarts a pass over every clause at each unit it finds, which made
// parsing most of a question's cost; after this it finds none.
func propagate(cnf [][]lit, units []lit, nvars int) (reduced [][]lit, set []lit, conflict bool) {
	value := make([]int8, nvars+1) // 1 true, -1 false, 0 unset
	valueOf := func(l lit) int8 {
		if l > 0 {
			return value[l]
		}
		return -value[-l]
	}
	// occurs lists, for each literal, the clauses it is in: one array,
	// cut by start (literal l's list is at index l+nvars).
	slot := func(l lit) int { return l + nvars }
	start := make([]int32, 2*nvars+2)
	for _, c := range cnf {
		for _, l := range c {
			start[slot(l)+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	occ := make([]int32, start[len(start)-1])
	fill := slices.Clone(start)
	for i, c := range cnf {
		for _, l := range c {
			occ[fill[slot(l)]] = int32(i)
			fill[slot(l)]++
		}
	}
	occurs := func(l lit) []int32 { return occ[start[slot(l)]:start[slot(l)+1]] }
	var queue []lit
	assign := func(l lit) bool {
		switch valueOf(l) {
		case 1:
			return true
		case -1:
			return false
		}
		if l > 0 {
			value[l] = 1
		} else {
			value[-l] = -1
		}
		set = append(set, l)
		queue = append(queue, l)
		return true
	}
	for _, u := range units {
		if !assign(u) {
			return nil, nil, true
		}
	}
	for _, c := range cnf {
		if len(c) == 1 && !assign(c[0]) {
			return nil, nil, true
		}
	}
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		// Clauses holding -l lost a literal: each may now be unit or empty.
		for _, i := range occurs(-l) {
			var free lit
			nfree, sat := 0, false
			for _, m := range cnf[i] {
				switch valueOf(m) {
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
			case nfree == 0:
				return nil, nil, true
			case nfree == 1:
				if !assign(free) {
					return nil, nil, true
				}
			}
		}
	}
	for _, c := range cnf {
		var out []lit
		sat := false
		for _, m := range c {
			switch valueOf(m) {
			case 1:
				sat = true
			case 0:
				out = append(out, m)
			}
			if sat {
				break
			}
		}
		if !sat && len(out) > 0 {
			reduced = append(reduced, out)
		}
	}
	return reduced, set, false
}
