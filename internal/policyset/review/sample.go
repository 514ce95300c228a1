package review

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The sampler: for one activity type, requests built from the values the
// policies that can apply to it compare against. A neutral request (every
// field a policy names at a value that matches none, the requester alone)
// is varied one field at a time over every value; each conjunction of a
// condition gives a seed that satisfies all its atoms at once, varied one
// field at a time over that conjunction's own values; approver sets come
// from the consensus expressions. Everything is sorted, so the same
// policies give the same requests in the same order.

// sampled is one request of the sample, with its example (also its key:
// two requests with one example are one request) and its words.
type sampled struct {
	req     policyset.Request
	example string
	words   string
}

// seedSpec is one conjunction and the approver sets of its policy.
type seedSpec struct {
	atoms   group
	sets    [][]policyset.User
	sortKey string
	eqs     []eqPath // guard paths, sorted, and the strings each requires
}

// typeAtoms gathers what the policies of one type compare against.
type typeAtoms struct {
	values  map[string][]any // path -> sample values
	neutral map[string]any   // path -> the value matching none of its literals
	seeds   []seedSpec
	sets    [][]policyset.User // approver sets of every consensus
}

const requesterID = "requester"

// gather merges the atoms of the policies that can apply to a type.
func gather(all []exprAtoms) typeAtoms {
	ta := typeAtoms{values: map[string][]any{}, neutral: map[string]any{}}
	var ids, tags []string
	var counts []int
	for _, a := range all {
		for _, at := range a.atoms {
			if activityFields[at.path] || strings.HasPrefix(at.path, "approvers") {
				continue
			}
			if vs := atomValues(at); len(vs) > 0 {
				ta.values[at.path] = append(ta.values[at.path], vs...)
			}
		}
		ids, tags, counts = append(ids, a.ids...), append(tags, a.tags...), append(counts, a.counts...)
		own := approverSets(a.ids, a.tags, a.counts, true)
		groups := a.groups
		if len(groups) == 0 {
			groups = []group{nil} // a policy without a condition still brings its approver sets
		}
		for _, g := range groups {
			ta.seeds = append(ta.seeds, seedSpec{atoms: g, sets: own})
		}
	}
	for p, vs := range ta.values {
		ta.neutral[p] = neutral(p, vs)
		ta.values[p] = sortValues(append(vs, ta.neutral[p]))
	}
	for i := range ta.seeds {
		ta.seeds[i].sortKey = ta.seeds[i].key()
		ta.seeds[i].eqs = eqsOf(ta.seeds[i].atoms)
	}
	slices.SortFunc(ta.seeds, func(a, b seedSpec) int { return strings.Compare(a.sortKey, b.sortKey) })
	ta.seeds = slices.CompactFunc(ta.seeds, func(a, b seedSpec) bool { return a.sortKey == b.sortKey })
	ta.sets = approverSets(ids, tags, counts, false)
	return ta
}

func (s seedSpec) key() string {
	var b strings.Builder
	for _, at := range s.atoms {
		fmt.Fprintf(&b, "%s %s %v;", at.path, at.op, at.vals)
	}
	for _, set := range s.sets {
		fmt.Fprintf(&b, "|%v", set)
	}
	return b.String()
}

// atomValues are the values one atom makes worth trying: its literals
// (as a one-element list for a list field), and each number's neighbours.
func atomValues(at atom) []any {
	t, _, _, ok := pathType(at.path)
	if !ok {
		return nil
	}
	var out []any
	switch t.Kind {
	case policylang.KindBool:
		return []any{false, true}
	case policylang.KindList:
		for _, v := range at.vals {
			if s, ok := v.(string); ok {
				out = append(out, []string{s})
			}
		}
	case policylang.KindString:
		for _, v := range at.vals {
			if s, ok := v.(string); ok && at.op == "slice" {
				out = append(out, fill("", at.lo, s))
			} else if ok {
				out = append(out, s)
			}
		}
	default:
		for _, v := range at.vals {
			if n, ok := v.(*big.Int); ok {
				for _, d := range []int64{-1, 0, 1} {
					if x := new(big.Int).Add(n, big.NewInt(d)); x.Sign() >= 0 {
						out = append(out, x)
					}
				}
			}
		}
	}
	return out
}

// neutral is a value of p that matches none of vs: for strings one none
// of them equals, an empty list, zero, false.
func neutral(p string, vs []any) any {
	t, _, _, ok := pathType(p)
	if !ok {
		return nil
	}
	switch t.Kind {
	case policylang.KindBool:
		return false
	case policylang.KindList:
		return []string{}
	case policylang.KindString:
		other := "other"
		for slices.ContainsFunc(vs, func(v any) bool { return v == other }) {
			other += "-x"
		}
		return other
	}
	return new(big.Int)
}

// hit is the value that satisfies one atom.
func hit(at atom, vs []any, cur any) (any, bool) {
	t, _, _, ok := pathType(at.path)
	if !ok || activityFields[at.path] {
		return nil, false
	}
	if at.op == "bool" {
		return true, true
	}
	if at.op == "slice" {
		s, _ := cur.(string)
		return fill(s, at.lo, at.vals[0].(string)), true //nolint:forcetypeassert // sliceAtom makes it a string
	}
	if len(at.vals) == 0 {
		return nil, false
	}
	if t.Kind == policylang.KindList {
		s, ok := at.vals[0].(string)
		return []string{s}, ok
	}
	if at.op == "!=" {
		if cur != nil && !slices.ContainsFunc(at.vals, func(v any) bool { return compareValues(v, cur) == 0 }) {
			return cur, true // the neutral value already differs
		}
		return neutral(at.path, vs), true
	}
	n, isNum := at.vals[0].(*big.Int)
	if !isNum {
		return at.vals[0], true
	}
	switch at.op {
	case "<":
		return new(big.Int).Sub(n, big.NewInt(1)), n.Sign() > 0
	case ">":
		return new(big.Int).Add(n, big.NewInt(1)), true
	}
	return n, true
}

// build is the type's sample, deduplicated by example, in order: the
// neutral request with each approver set, each value of each path from
// it, then each seed with its sets and its own values. A change's seeds
// are also joined with the organization's (cross) that agree with it, the
// first maxJoins in their order: a deny the change lifts shows on the
// requests another policy allows. prior holds
// examples already sampled (the organization's, when ta is a change's).
func build(typ string, ta typeAtoms, base map[string]any, full []policyset.User, cross *seedJoins, prior *seen) ([]sampled, *seen) {
	requester := ta.sets[0]
	s := sampleSet{typ: typ, seen: seen{examples: map[string]bool{}, tried: map[string]bool{}}, prior: prior, base: base}
	for _, set := range ta.sets {
		s.add(base, set)
	}
	for _, p := range slices.Sorted(maps.Keys(ta.values)) {
		for _, v := range ta.values[p] {
			s.add(with(base, p, v), requester)
			s.add(with(base, p, v), full)
		}
	}
	for _, sp := range ta.seeds {
		seed, own := satisfy(base, sp, ta.values)
		for _, set := range append([][]policyset.User{requester, full}, sp.sets...) {
			s.add(seed, set)
		}
		for _, at := range sp.atoms {
			if !slices.Contains(own, at.path) {
				continue
			}
			for _, v := range sortValues(append(atomValues(at), base[at.path])) {
				s.add(with(seed, at.path, v), requester)
				s.add(with(seed, at.path, v), full)
			}
		}
		for _, other := range cross.with(sp) {
			joined, _ := satisfy(base, other, ta.values)
			joined, _ = satisfy(joined, sp, ta.values)
			s.add(joined, requester)
			s.add(joined, full)
		}
	}
	return s.out, &s.seen
}

// satisfy sets, from assign, the paths a seed's atoms name to values that
// satisfy them, and lists those paths.
func satisfy(assign map[string]any, sp seedSpec, values map[string][]any) (map[string]any, []string) {
	var own []string
	for _, at := range sp.atoms {
		if v, ok := hit(at, values[at.path], assign[at.path]); ok {
			assign = with(assign, at.path, v)
			own = append(own, at.path)
		}
	}
	return assign, own
}

type sampleSet struct {
	typ   string
	seen  seen
	prior *seen // the organization's, when building a change's; or nil
	base  map[string]any
	out   []sampled
	kind  string             // the type's words, once
	who   map[apprRef]string // each approver set's words, once
	keys  []string           // the paths of the last assignment, sorted
}

// keysOf are assign's paths, sorted: most assignments of a sample set
// copy one base, so the last sorted list is reused when it fits.
func (s *sampleSet) keysOf(assign map[string]any) []string {
	if len(s.keys) == len(assign) && s.keys != nil {
		fits := true
		for _, k := range s.keys {
			if _, ok := assign[k]; !ok {
				fits = false
				break
			}
		}
		if fits {
			return s.keys
		}
	}
	s.keys = slices.Sorted(maps.Keys(assign))
	return s.keys
}

// apprRef names an approver set by its backing array: the sampler passes
// the same few sets, never changed, to every add.
type apprRef struct {
	first *policyset.User
	n     int
}

// seen are the examples sampled, and the assignments tried (by
// assignKey): an assignment tried before gives a request already sampled
// (or refused), so it is skipped before its request and example are
// built, which most of a change's are.
type seen struct{ examples, tried map[string]bool }

func (s *sampleSet) add(assign map[string]any, approvers []policyset.User) {
	keys := s.keysOf(assign)
	k := assignKey(assign, keys, approvers)
	if s.seen.tried[k] || (s.prior != nil && s.prior.tried[k]) {
		return
	}
	s.seen.tried[k] = true
	req, ok := request(s.typ, assign, keys, approvers)
	if !ok {
		return
	}
	ex := example(req)
	if s.seen.examples[ex] || (s.prior != nil && s.prior.examples[ex]) {
		return
	}
	s.seen.examples[ex] = true
	if s.kind == "" {
		s.kind = kindWords(s.typ)
	}
	var ref apprRef
	if len(approvers) > 0 {
		ref = apprRef{first: &approvers[0], n: len(approvers)}
	}
	w, ok := s.who[ref]
	if !ok || ref.first == nil {
		if s.who == nil {
			s.who = map[apprRef]string{}
		}
		w = who(approvers)
		s.who[ref] = w
	}
	s.out = append(s.out, sampled{req: req, example: ex, words: words(w, s.kind, assign, keys, s.base)})
}

// assignKey identifies an assignment and approver set: equal keys give
// equal requests (request is a function of them).
// keys are assign's, sorted.
func assignKey(assign map[string]any, keys []string, approvers []policyset.User) string {
	b := make([]byte, 0, 256)
	for _, p := range keys {
		b = append(b, p...)
		b = append(b, '=')
		switch v := assign[p].(type) {
		case *big.Int:
			b = append(b, 'n')
			b = v.Append(b, 10)
		case string:
			b = strconv.AppendQuote(b, v)
		case bool:
			b = append(b, 'b')
			b = strconv.AppendBool(b, v)
		case []string:
			b = append(b, 'l', '[')
			for _, s := range v {
				b = strconv.AppendQuote(b, s)
			}
			b = append(b, ']')
		default:
			b = fmt.Appendf(b, "%T%#v", v, v)
		}
		b = append(b, ';')
	}
	for _, u := range approvers {
		b = append(b, '|')
		b = strconv.AppendQuote(b, u.ID)
		b = append(b, '[')
		for _, t := range u.Tags {
			b = strconv.AppendQuote(b, t)
		}
		b = append(b, ']')
	}
	return string(b)
}

// with is assign with p set to v, a copy.
func with(assign map[string]any, p string, v any) map[string]any {
	out := maps.Clone(assign)
	if out == nil {
		out = map[string]any{}
	}
	out[p] = v
	return out
}

// sortValues sorts and deduplicates values of one path.
func sortValues(vs []any) []any {
	slices.SortFunc(vs, compareValues)
	return slices.CompactFunc(vs, func(a, b any) bool { return compareValues(a, b) == 0 })
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case *big.Int:
		if y, ok := b.(*big.Int); ok {
			return x.Cmp(y)
		}
	case string: // "string x" against "string y" is x against y
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bool: // "bool false" sorts before "bool true"
		if y, ok := b.(bool); ok {
			return strings.Compare(strconv.FormatBool(x), strconv.FormatBool(y))
		}
	}
	return strings.Compare(fmt.Sprintf("%T %v", a, a), fmt.Sprintf("%T %v", b, b))
}
