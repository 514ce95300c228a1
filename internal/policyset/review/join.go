package review

import (
	"iter"
	"maps"
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
	for _, p := range slices.Sorted(maps.Keys(out)) {
		eqs = append(eqs, eqPath{path: p, vals: slices.Sorted(maps.Keys(out[p]))})
	}
	return eqs
}

// seedJoins are the organization's conjunctions of one type, in order,
// indexed by every guard path: by the strings a conjunction requires on
// it, or as lacking it. A change's conjunction finds those that agree
// with it through the path that narrows them most, without walking all
// of them (an organization of n signing policies, each to its own
// address, has n, all requiring the same eth.tx.data).
type seedJoins struct {
	seeds   []seedSpec
	byPath  map[string]map[string][]int // path -> string -> seeds
	lacking map[string][]int            // path -> seeds requiring nothing of it
}

func newSeedJoins(seeds []seedSpec) *seedJoins {
	j := &seedJoins{seeds: seeds, byPath: map[string]map[string][]int{}, lacking: map[string][]int{}}
	for _, sd := range seeds {
		for _, e := range sd.eqs {
			if j.byPath[e.path] == nil {
				j.byPath[e.path] = map[string][]int{}
			}
		}
	}
	for i, sd := range seeds {
		for p, byValue := range j.byPath {
			vals, ok := eqsAt(sd.eqs, p)
			if !ok {
				j.lacking[p] = append(j.lacking[p], i)
				continue
			}
			for _, v := range vals {
				byValue[v] = append(byValue[v], i)
			}
		}
	}
	return j
}

// with are the first maxJoins seeds, in order, joinable with sp. A seed
// that requires strings of a path sp requires some of agrees with sp
// only if it requires one of them too: on the path that leaves fewest,
// only those seeds and the ones lacking the path can be joinable.
func (j *seedJoins) with(sp seedSpec) []seedSpec {
	if j == nil {
		return nil
	}
	best, bestN := "", -1
	for _, e := range sp.eqs {
		byValue, ok := j.byPath[e.path]
		if !ok {
			continue
		}
		n := len(j.lacking[e.path])
		for _, v := range e.vals {
			n += len(byValue[v])
		}
		if bestN < 0 || n < bestN {
			best, bestN = e.path, n
		}
	}
	if bestN < 0 {
		return j.first(sp, func(yield func(int) bool) {
			for i := range j.seeds {
				if !yield(i) {
					return
				}
			}
		})
	}
	cand := make([]int, 0, bestN)
	cand = append(cand, j.lacking[best]...)
	vals, _ := eqsAt(sp.eqs, best)
	for _, v := range vals {
		cand = append(cand, j.byPath[best][v]...)
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
