package symbolic

import (
	"cmp"
	"maps"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// domains is what every form of a question compares each generic path
// with, and how many slots each list needs: the first pass, over all the
// policies a question involves, before anything is encoded.
type domains struct {
	strs  map[string][]string   // by generic path: string constants
	ints  map[string][]*big.Int // by generic path: integer constants
	types map[string]*policylang.Type
	// demand is, per generic list path, how many elements a smaller
	// request must keep so that every quantifier and count over the list
	// comes out as it did (see bound).
	demand map[string]int
	// reserve is, per generic list path, the positions read by index:
	// the first reserve elements are always kept, in place.
	reserve map[string]int
	// seen are the quantifiers and counts counted in demand already, by
	// their text: the same one in many policies needs its elements once.
	seen map[string]bool
	// strLens are, per generic string path, the lengths of the constants
	// it is compared with whole; they cut its length only where it is
	// also sliced.
	strLens map[string][]*big.Int
	// counts are, per generic list path, the counts compared with a
	// constant; finish turns them into demand.
	counts map[string][]countDemand
	// exactNeed is, per generic list path, the most elements a count over
	// it may need (k+1 for a count compared with k) and be encoded
	// exactly; a count that needs more is bounded (count.go).
	exactNeed map[string]int64
	// classed are the generic list paths whose counts are all counted by
	// class (count_classes.go), with the number of filters they count.
	classed map[string]int
	// compared are pairs of generic string paths compared with each
	// other: finish gives each the other's constants
	// (strings_equal.go).
	compared [][2]string
	// typedKinds are, per generic path of a value only an uploaded ABI
	// types, the kinds of the constants it is compared with
	// (typed_values.go).
	typedKinds map[string]map[policylang.Kind]bool
	// spans are the weekly CronSpans, by their key (spanKeys, sorted in
	// finish): time.now's classes are cut by their values
	// (time_classes.go).
	spanKeys []string
	spans    []*policylang.CronWindow
	// sliceBounds are, per generic string path, the ranges read of it
	// (slice_positions.go).
	sliceBounds map[string][][2]int64
}

// countDemand is one count compared with k: need is k+1, the elements
// that keep the comparison as it was (math.MaxInt64 where k is no int64),
// and extra the elements its filters need to keep an error.
type countDemand struct {
	need   int64
	extra  int
	filter string // the list and its filters, as written
}

func newDomains() *domains {
	return &domains{strs: map[string][]string{}, ints: map[string][]*big.Int{}, types: map[string]*policylang.Type{},
		demand: map[string]int{}, reserve: map[string]int{}, seen: map[string]bool{}, strLens: map[string][]*big.Int{},
		counts: map[string][]countDemand{}, exactNeed: map[string]int64{}, classed: map[string]int{}, typedKinds: map[string]map[policylang.Kind]bool{}, sliceBounds: map[string][][2]int64{}}
}

// The small model. Whatever a list holds, a sublist of it decides every
// form alike: keep the elements read by index (in place), and for each
// quantifier over the list one element that satisfies its body and one
// that errs (any), one that fails it and one that errs (all), and for
// each count compared with k, k+1 of the counted elements and one that
// errs. A count that was below k+1 keeps all its elements, one that was
// above keeps k+1, and every comparison with k comes out the same; an any
// that held still holds, an all that failed still fails, an error is
// still raised. So no request needs more elements than the sum of these,
// and a question answered over that many slots is answered for every
// request. Any sublist that holds these elements does as well, so the
// sublist may be as long as the slots allow. A count too large for the
// slots (countSlots) keeps one element of each class of the list's counts
// (and one that errs), the rest being copies of those (count_classes.go);
// past maxCountedFilters filters, one counted element, and its comparison
// is bounded rather than decided (count.go).

func (d *domains) addForm(f *form) {
	if f == nil {
		return
	}
	for _, a := range f.args {
		d.addForm(a)
	}
	switch f.op {
	case fBoolPath:
		d.addPath(f.path)
	case fFree:
		if f.pathEq != "" {
			d.compared = append(d.compared, [2]string{f.left.gen, f.right.gen})
		}
		if f.cron != nil && !slices.Contains(d.spanKeys, f.key) {
			d.spanKeys = append(d.spanKeys, f.key)
			d.spans = append(d.spans, f.cron)
		}
	case fCmp:
		if f.untyped != nil {
			d.addTyped(f)
		}
		d.addCmp(f)
	case fAny, fAll:
		// One element that satisfies (any) or fails (all) the body, and
		// one that errs where the body can.
		n := 1
		if canErr(f.body) {
			n++
		}
		d.addList(f.list, n, formKey(f))
		d.addForm(f.body)
	}
}

func (d *domains) addPath(t *term) {
	if t == nil || t.kind != tPath {
		return
	}
	d.types[t.gen] = t.typ
	for _, r := range t.reads {
		d.reserve[r.gen] = max(d.reserve[r.gen], int(r.pos)+1)
	}
	if sl := t.slice; sl != nil {
		d.addPath(sl.base)
		// The base's length is cut at each slice's end, and at the end of
		// the slice a slice is read of.
		lp := lenPath(sl.base.gen)
		d.ints[lp] = append(d.ints[lp], big.NewInt(sl.hi), big.NewInt(sl.need))
		if sl.lo >= 0 && sl.lo <= sl.hi && !slices.Contains(d.sliceBounds[sl.base.gen], [2]int64{sl.lo, sl.hi}) {
			d.sliceBounds[sl.base.gen] = append(d.sliceBounds[sl.base.gen], [2]int64{sl.lo, sl.hi})
		}
	}
}

func lenPath(gen string) string { return "len(" + gen + ")" }

// addList counts n elements of l for the quantifier key, once per
// distinct key; a filter that can err needs one more.
func (d *domains) addList(l *listRef, n int, key string) {
	n += d.addListReads(l)
	if !d.seen[key] {
		d.seen[key] = true
		d.demand[l.path.gen] += n
	}
}

// addListReads adds what l reads; it is the number of its filters that
// can err, each of which needs an element kept.
func (d *domains) addListReads(l *listRef) (erring int) {
	d.addPath(l.path)
	for _, f := range l.filters {
		if canErr(f.body) {
			erring++
		}
		d.addForm(f.body)
	}
	return erring
}

// addCount notes a count compared with a constant (or found in a list of
// them: one comparison each), once per distinct comparison: how many
// elements it needs is settled in finish, beside the list's other counts.
func (d *domains) addCount(f *form) {
	extra := d.addListReads(f.left.list)
	key := formKey(f)
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	consts := []*term{f.right}
	if f.cmp == "in" {
		consts = f.right.elems
	}
	gen := f.left.list.path.gen
	var filter strings.Builder
	writeList(&filter, f.left.list, map[string]string{})
	for _, c := range consts {
		need := int64(1)
		if k, ok := constInt(c); ok && k.Sign() >= 0 {
			need = math.MaxInt64
			if k.IsInt64() && k.Int64() < math.MaxInt64 {
				need = k.Int64() + 1
			}
		}
		d.counts[gen] = append(d.counts[gen], countDemand{need: need, extra: extra, filter: filter.String()})
	}
}

func (d *domains) addCmp(f *form) {
	switch f.left.kind {
	case tCount:
		d.addCount(f)
		return
	case tPath:
		d.addPath(f.left)
	default:
		return
	}
	consts := []*term{f.right}
	if f.cmp == "in" || f.right != nil && f.right.kind == tList {
		consts = f.right.elems
	}
	for _, c := range consts {
		if c == nil {
			continue
		}
		d.addConst(f.left, c)
	}
}

func (d *domains) addConst(p *term, c *term) {
	switch p.typ.Kind {
	case policylang.KindString:
		if s, ok := c.val.(string); ok {
			d.strs[p.gen] = append(d.strs[p.gen], s)
			if p.slice != nil {
				return
			}
			// A string compared whole fixes its length, and so whether
			// each of its slices is in range.
			d.strLens[p.gen] = append(d.strLens[p.gen], big.NewInt(int64(len([]rune(s)))))
		}
	case policylang.KindInt, policylang.KindUint, policylang.KindTimestamp:
		if i, ok := constInt(c); ok && inLanguageRange(i) {
			d.ints[p.gen] = append(d.ints[p.gen], i)
		}
	}
}

// finish sorts and dedupes the constants, cuts the length of each
// sliced string at the lengths of the constants it is compared with, and
// gives each list's counts their elements (exactCounts).
func (d *domains) finish() {
	d.exactCounts()
	d.sortSpans()
	d.shareCompared()
	for gen, lens := range d.strLens {
		if _, sliced := d.ints[lenPath(gen)]; sliced {
			d.ints[lenPath(gen)] = append(d.ints[lenPath(gen)], lens...)
		}
	}
	for k, v := range d.strs {
		slices.Sort(v)
		d.strs[k] = slices.Compact(v)
	}
}

// countSlots bounds the slots that the counts over one list take to be
// encoded exactly. A count compared with k needs k+1 slots and a counter
// of about k times the list's slots in gates: 3,000 took a minute and
// 7 GB. Past the bound a count is bounded instead (count.go): a
// variable per threshold, which a witness then makes true or false. A
// variable, so that the differential test can lower it.
var countSlots int64 = 64

// exactCounts gives each list's counts their demand: the counts that
// need the fewest elements are encoded exactly while they fit in
// countSlots (all counts of one need, or none), and each of the others
// keeps one element. A list with a count past the slots, counted with at
// most maxCountedFilters filters, is counted by class instead
// (count_classes.go): one element of each class, and none decided over
// the slots alone.
func (d *domains) exactCounts() {
	for _, gen := range slices.Sorted(maps.Keys(d.counts)) {
		cs := d.counts[gen]
		slices.SortFunc(cs, func(a, b countDemand) int { return cmp.Compare(a.need, b.need) })
		used := int64(d.reserve[gen] + d.demand[gen])
		limit := int64(0)
		for i := 0; i < len(cs); {
			j, sum := i, int64(0)
			for ; j < len(cs) && cs[j].need == cs[i].need; j++ {
				sum += min(cs[j].need, countSlots+1) + int64(cs[j].extra)
			}
			if used+sum > countSlots {
				break
			}
			used, limit, i = used+sum, cs[i].need, j
		}
		filters := map[string]bool{}
		for _, c := range cs {
			filters[c.filter] = true
			d.demand[gen] += c.extra
		}
		if limit < cs[len(cs)-1].need && len(filters) <= maxCountedFilters && gen != "approvers" && gen != "credentials" {
			d.classed[gen] = len(filters)
			d.demand[gen] += 1<<len(filters) - 1
			continue
		}
		for _, c := range cs {
			if c.need <= limit {
				d.demand[gen] += int(c.need)
			} else {
				d.demand[gen]++
			}
		}
		d.exactNeed[gen] = limit
	}
}

// exactCount tells whether a count over gen compared with k is encoded
// exactly: its k+1 elements are among the list's slots.
func (d *domains) exactCount(gen string, k *big.Int) bool {
	return k.Cmp(big.NewInt(d.exactNeed[gen])) < 0
}

// isConst tells whether v is one of the constants gen is compared with
// (not a neighbour of one).
func (d *domains) isConst(gen string, v *big.Int) bool {
	return slices.ContainsFunc(d.ints[gen], func(c *big.Int) bool { return c.Cmp(v) == 0 })
}
