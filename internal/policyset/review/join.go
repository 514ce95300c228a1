package review

import (
	"iter"
	"slices"
)

// maxJoins bounds the organization's conjunctions one of a change's is
// joined with: an organization of many policies of one type (signing
// policies, each to its own address) must not give each change requests
// in proportion to their number.
const maxJoins = 16

// joinable: no guard path on which the two conjunctions require disjoint
// strings. A join they disagree on satisfies only the change's conjunction
// (the change's values win), which its own seed already shows.
func joinable(a, b seedSpec) bool {
	for p, av := range a.eqs {
		bv, ok := b.eqs[p]
		if ok && !overlap(av, bv) {
			return false
		}
	}
	return true
}

func overlap(a, b map[string]bool) bool {
	for v := range a {
		if b[v] {
			return true
		}
	}
	return false
}

// eqsOf are the strings a conjunction's equality atoms on guard paths
// require, by path.
func eqsOf(g group) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, at := range g {
		if (at.op != "==" && at.op != "in") || !guardPath(at.path) {
			continue
		}
		vals := map[string]bool{}
		for _, v := range at.vals {
			if s, ok := v.(string); ok {
				vals[s] = true
			}
		}
		if len(vals) == len(at.vals) && len(vals) > 0 {
			out[at.path] = vals
		}
	}
	return out
}

// seedJoins are the organization's conjunctions of one type, in order,
// indexed by the strings their first guard path requires, so that a
// change's conjunction finds those that agree with it without walking
// all of them (an organization of n signing policies, each to its own
// address, has n).
type seedJoins struct {
	seeds  []seedSpec
	free   []int                       // seeds of no guard path
	byPath map[string]map[string][]int // path -> string -> seeds
}

func newSeedJoins(seeds []seedSpec) *seedJoins {
	j := &seedJoins{seeds: seeds, byPath: map[string]map[string][]int{}}
	for i, sd := range seeds {
		ps := sortedKeys(sd.eqs)
		if len(ps) == 0 {
			j.free = append(j.free, i)
			continue
		}
		p := ps[0]
		if j.byPath[p] == nil {
			j.byPath[p] = map[string][]int{}
		}
		for v := range sd.eqs[p] {
			j.byPath[p][v] = append(j.byPath[p][v], i)
		}
	}
	return j
}

// with are the first maxJoins seeds, in order, joinable with sp. When sp
// requires strings on every indexed path, only the seeds the index gives
// for them (and those of no indexed path) can agree.
func (j *seedJoins) with(sp seedSpec) []seedSpec {
	if j == nil {
		return nil
	}
	cand, narrowed := slices.Clone(j.free), true
	for p, byValue := range j.byPath {
		vals, ok := sp.eqs[p]
		if !ok {
			narrowed = false // walk them all, in order, to the bound
			break
		}
		for _, v := range sortedKeys(vals) {
			cand = append(cand, byValue[v]...)
		}
	}
	if !narrowed {
		return j.first(sp, func(yield func(int) bool) {
			for i := range j.seeds {
				if !yield(i) {
					return
				}
			}
		})
	}
	slices.Sort(cand)
	return j.first(sp, slices.Values(slices.Compact(cand)))
}

// first are the first maxJoins of the seeds given that are joinable.
func (j *seedJoins) first(sp seedSpec, seq iter.Seq[int]) []seedSpec {
	var out []seedSpec
	for i := range seq {
		if len(out) == maxJoins {
			break
		}
		if joinable(sp, j.seeds[i]) {
			out = append(out, j.seeds[i])
		}
	}
	return out
}
