package symbolic

import (
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// encoder is the second stage: it expands one question's forms over the
// request of one activity type, as a circuit. Every path read is a
// scalar (its classes), every list read is slots, and each value's error
// is the absence of what it reads.
type encoder struct {
	c       *circuit
	typ     string
	d       *domains
	model   requestModel
	scalars map[string]*scalar
	lists   map[string]*slots
	pres    map[string]lit
	frees   map[string]lit
	env     map[string]string // a bound variable ("$3") to its element's path
	// overs are the over-approximated constructs the forms met.
	overs map[string]bool
	// bounds are the counts too large for their list's slots, by list
	// (bound): what a witness must make true of each (count.go).
	bounds map[string]*countBound
	// classes are the lists counted by class, by concrete path
	// (count_classes.go).
	classes map[string]*countClasses
	// rootIDs are the root users' ids: no approver has one.
	rootIDs []string
	// scalarPaths are scalars' keys, sorted, while their count is as
	// when sorted (scalarsSorted): each region's witness walks them.
	scalarPaths []string
	// eq are the strings compared with each other (strings_equal.go).
	eq equalities
	// positions are the sliced strings' segments, by concrete path
	// (slice_positions.go).
	positions map[string]*positions
}

// scalar is one path's value, as a class.
type scalar struct {
	path, gen string
	typ       *policylang.Type
	boolLit   lit
	strs      []string // string classes; the last class is "another value"
	ints      []intClass
	classes   []lit
	// cut: time.now's classes cut by weekly CronSpans (time_classes.go).
	cut *timeCut
	// ladder: for an integer, "the class is the kth or later", by k
	// (int_ladder.go).
	ladder []lit
}

// slots are a list's elements: active[i] says element i exists; active
// elements come first.
type slots struct {
	path, gen string
	active    []lit
}

func newEncoder(typ string, d *domains, model requestModel, rootIDs []string) *encoder {
	return &encoder{c: newCircuit(), typ: typ, d: d, model: model, scalars: map[string]*scalar{}, lists: map[string]*slots{},
		pres: map[string]lit{}, frees: map[string]lit{}, env: map[string]string{}, overs: map[string]bool{}, bounds: map[string]*countBound{}, classes: map[string]*countClasses{},
		rootIDs: rootIDs, eq: equalities{vars: map[string]lit{}, in: map[string]bool{}}, positions: map[string]*positions{}}
}

// concrete is a term's path with its bound variable replaced by the
// element it is bound to.
func (e *encoder) concrete(path string) string {
	if !strings.HasPrefix(path, "$") {
		return path
	}
	end := strings.IndexAny(path, ".[")
	if end < 0 {
		end = len(path)
	}
	return e.env[path[:end]] + path[end:]
}

// value is a form's value and error.
type value struct{ v, err lit }

func (e *encoder) form(f *form) value {
	c := e.c
	switch f.op {
	case fConst:
		if f.val {
			return value{litTrue, litFalse}
		}
		return value{litFalse, litFalse}
	case fAnd, fOr:
		vs, errs := make([]lit, len(f.args)), make([]lit, len(f.args))
		for i, a := range f.args {
			x := e.form(a)
			vs[i], errs[i] = x.v, x.err
		}
		if f.op == fAnd {
			return value{c.and(vs...), c.or(errs...)}
		}
		return value{c.or(vs...), c.or(errs...)}
	case fNot:
		x := e.form(f.args[0])
		return value{-x.v, x.err}
	case fBoolPath:
		p := e.concrete(f.path.path)
		return value{e.scalar(p, f.path).boolLit, -e.presence(p)}
	case fCmp:
		if f.untyped != nil && !e.d.oneKind(f.left.gen) {
			return e.free(f.untyped)
		}
		return e.cmp(f)
	case fAny, fAll:
		return e.quantifier(f)
	case fErr:
		return value{litFalse, litTrue}
	}
	return e.free(f)
}

// free is an over-approximated construct: one variable per construct and
// element, its errors those of what it reads, and any error at all where
// its value's type is not known.
func (e *encoder) free(f *form) value {
	if v, ok := e.sameUserDecided(f); ok {
		return v
	}
	if v, ok := e.stringsEqual(f); ok {
		return v
	}
	if v, ok := e.cronDecided(f); ok {
		return v
	}
	e.overs[f.why] = true
	key := f.key
	for _, id := range slices.Sorted(maps.Keys(e.env)) {
		key += "|" + e.env[id]
	}
	v, ok := e.frees[key]
	if !ok {
		v = e.c.fresh()
		e.frees[key] = v
	}
	errs := []lit{e.readsErr(f)}
	if f.errFree {
		ek, ok := e.frees["err:"+key]
		if !ok {
			ek = e.c.fresh()
			e.frees["err:"+key] = ek
		}
		errs = append(errs, ek)
	}
	return value{v, e.c.or(errs...)}
}

func (e *encoder) cmp(f *form) value {
	c := e.c
	if f.left.kind == tCount {
		return e.countCmp(f)
	}
	p := e.concrete(f.left.path)
	s := e.scalar(p, f.left)
	absent := -e.presence(p)
	if f.cmp == "read" {
		return value{litTrue, absent}
	}
	consts := []*term{f.right}
	op := f.cmp
	if op == "in" {
		consts, op = f.right.elems, "=="
	}
	vs, errs := []lit{}, []lit{absent}
	for _, k := range consts {
		x := e.cmpConst(s, op, k, f)
		vs, errs = append(vs, x.v), append(errs, x.err)
	}
	v := c.or(vs...)
	if f.cmp != "in" && len(vs) == 1 {
		v = vs[0]
	}
	return value{v, c.or(errs...)}
}

// cmpConst is s op k, as the evaluator compares (equal, order).
func (e *encoder) cmpConst(s *scalar, op string, k *term, f *form) value {
	ordering := op != "==" && op != "!="
	neg := func(l lit) lit {
		if op == "!=" {
			return -l
		}
		return l
	}
	switch s.typ.Kind {
	case policylang.KindBool:
		b, ok := k.val.(bool)
		if !ok || ordering {
			return value{litFalse, litTrue}
		}
		if b {
			return value{neg(s.boolLit), litFalse}
		}
		return value{neg(-s.boolLit), litFalse}
	case policylang.KindString:
		str, ok := k.val.(string)
		switch {
		case !ok:
			// A string of digits compares with an int as a number:
			// which depends on the digits, not on the classes.
			return e.free(&form{op: fFree, why: "a string compared with a number", key: f.left.gen + op + "#" + strconv.Quote(fmtConst(k))})
		case ordering:
			return value{litFalse, litTrue} // two strings are never ordered
		}
		i := slices.Index(s.strs[:len(s.strs)-1], str)
		if i < 0 {
			return value{neg(litFalse), litFalse}
		}
		return value{neg(s.classes[i]), litFalse}
	}
	n, ok := constInt(k)
	if !ok || !inLanguageRange(n) {
		return value{litFalse, litTrue}
	}
	return value{e.intCmp(s, op, n), litFalse}
}

func fmtConst(k *term) string {
	switch v := k.val.(type) {
	case string:
		return v
	case *big.Int:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// kept are the lits of the list's elements that its filters keep, and the
// error of reading the list and evaluating the filters.
func (e *encoder) kept(l *listRef) ([]lit, lit) {
	p := e.concrete(l.path.path)
	sl := e.slots(p, l.path.gen)
	errs := []lit{-e.presence(p)}
	kept := slices.Clone(sl.active)
	for _, flt := range l.filters {
		for i := range kept {
			e.env[flt.bind] = p + "[" + strconv.Itoa(i) + "]"
			x := e.form(flt.body)
			errs = append(errs, e.c.and(kept[i], x.err))
			kept[i] = e.c.and(kept[i], x.v)
		}
		delete(e.env, flt.bind)
	}
	return kept, e.c.or(errs...)
}

func (e *encoder) quantifier(f *form) value {
	kept, err := e.kept(f.list)
	p := e.concrete(f.list.path.path)
	vs, errs := make([]lit, len(kept)), []lit{err}
	for i, k := range kept {
		e.env[f.bind] = p + "[" + strconv.Itoa(i) + "]"
		x := e.form(f.body)
		errs = append(errs, e.c.and(k, x.err))
		if f.op == fAny {
			vs[i] = e.c.and(k, x.v)
		} else {
			vs[i] = e.c.implies(k, x.v)
		}
	}
	delete(e.env, f.bind)
	if f.op == fAny {
		return value{e.c.or(vs...), e.c.or(errs...)}
	}
	return value{e.c.and(vs...), e.c.or(errs...)}
}

// scalarsSorted is e.scalars' paths in order; scalars are only added, so
// the count tells whether the list is current.
func (e *encoder) scalarsSorted() []string {
	if len(e.scalarPaths) != len(e.scalars) {
		e.scalarPaths = slices.Sorted(maps.Keys(e.scalars))
	}
	return e.scalarPaths
}

// readsErr is the error of what a free form reads (its args: an absent
// keyword, an element read by index that the request lacks), which it
// raises whether it is decided or over-approximated.
func (e *encoder) readsErr(f *form) lit {
	errs := make([]lit, len(f.args))
	for i, a := range f.args {
		errs[i] = e.form(a).err
	}
	return e.c.or(errs...)
}
