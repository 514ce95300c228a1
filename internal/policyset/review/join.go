package review

import (
	"iter"
	"slices"
	"strings"
)

// maxJoins bounds the organization's conjunctions one of a change's is
// joined with: an organization of many policies of one type (signing
// policies, each to its own address) must not give each change requests
// in proportion to their number.
const maxJoins = 16

// joinable: no guard path on which the two conjunctions require disjoint
// strings. A join they disagree on satisfies only the change's conjunction
// (the change's values win), which its own seed already shows.
// Both lists are sorted by path, so one walk of the two compares them.
func joinable(a, b seedSpec) bool {
	i, k := 0, 0
	for i < len(a.eqs) && k < len(b.eqs) {
		switch c := strings.Compare(a.eqs[i].path, b.eqs[k].path); {
		case c < 0:
			i++
		case c > 0:
			k++
		default:
			if !overlap(a.eqs[i].vals, b.eqs[k].vals) {
				return false
			}
			i, k = i+1, k+1
		}
	}
	return true
}

// overlap: the two sorted lists share a string.
func overlap(a, b []string) bool {
	i, k := 0, 0
	for i < len(a) && k < len(b) {
		switch c := strings.Compare(a[i], b[k]); {
		case c < 0:
			i++
		case c > 0:
			k++
		default:
			return true
		}
	}
	return false
}

// eqPath is one guard path of a conjunction and the strings it requires,
// sorted.
type eqPath struct {
	path string
	vals []string
}

// eqsAt are the strings eqs requires on p, if any.
func eqsAt(eqs []eqPath, p string) ([]string, bool) {
	i, ok := slices.BinarySearchFunc(eqs, p, func(e eqPath, p string) int { return strings.Compare(e.path, p) })
	if !ok {
		return nil, false
	}
	return eqs[i].vals, true
}

// eqsOf are the strings a conjunction's equality atoms on guard paths
// require, by path, sorted by path.
func eqsOf(g group) []eqPath {
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
	eqs := make([]eqPath, 0, len(out))
	for _, p := range sortedKeys(out) {
		eqs = append(eqs, eqPath{path: p, vals: sortedKeys(out[p])})
	}
	return eqs
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
		if len(sd.eqs) == 0 {
			j.free = append(j.free, i)
			continue
		}
		p := sd.eqs[0].path
		if j.byPath[p] == nil {
			j.byPath[p] = map[string][]int{}
		}
		for _, v := range sd.eqs[0].vals {
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
		vals, ok := eqsAt(sp.eqs, p)
		if !ok {
			narrowed = false // walk them all, in order, to the bound
			break
		}
		for _, v := range vals {
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
