package symbolic

import (
	"math/big"
	"slices"

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
}

func newDomains() *domains {
	return &domains{strs: map[string][]string{}, ints: map[string][]*big.Int{}, types: map[string]*policylang.Type{},
		demand: map[string]int{}, reserve: map[string]int{}, seen: map[string]bool{}, strLens: map[string][]*big.Int{}}
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
// request.

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
	case fCmp:
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
	if t.slice != nil {
		d.addPath(t.slice.base)
		// The base's length is cut at each slice's end.
		d.ints[lenPath(t.slice.base.gen)] = append(d.ints[lenPath(t.slice.base.gen)], big.NewInt(t.slice.hi))
	}
}

func lenPath(gen string) string { return "len(" + gen + ")" }

// addList counts n elements of l for the quantifier or count key, once
// per distinct key; a filter that can err needs one more.
func (d *domains) addList(l *listRef, n int, key string) {
	d.addPath(l.path)
	for _, f := range l.filters {
		if canErr(f.body) {
			n++
		}
		d.addForm(f.body)
	}
	if !d.seen[key] {
		d.seen[key] = true
		d.demand[l.path.gen] += n
	}
}

func (d *domains) addCmp(f *form) {
	switch f.left.kind {
	case tCount:
		k, _ := constInt(f.right)
		add := 1
		if k != nil && k.IsInt64() && k.Int64() >= 0 && k.Int64() < 1<<16 {
			add = int(k.Int64()) + 1
		}
		d.addList(f.left.list, add, formKey(f))
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

// finish sorts and dedupes the constants, and cuts the length of each
// sliced string at the lengths of the constants it is compared with.
func (d *domains) finish() {
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

// isConst tells whether v is one of the constants gen is compared with
// (not a neighbour of one).
func (d *domains) isConst(gen string, v *big.Int) bool {
	return slices.ContainsFunc(d.ints[gen], func(c *big.Int) bool { return c.Cmp(v) == 0 })
}
