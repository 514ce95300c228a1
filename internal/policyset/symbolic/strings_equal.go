package symbolic

import (
	"slices"
	"strings"
)

// Two strings of the request compared with each other (the self-send
// deny eth.tx.to == eth.tx.from, an address compared with a listed one)
// are decided, not over-approximated. Each path is a scalar whose classes
// are the constants of both (shareCompared), and its last class "another
// value". Two paths are equal where they take one named class, or where
// both are another value and their equality variable holds. Equality
// variables are kept consistent within the question (transitive: of
// three paths each another value, two pairs equal make the third), and a
// witness gives each set of equal paths one value of its own
// (equalValues). Excluded, and still over-approximated: ids and tags
// (their witness names each apart: approvers are distinct users, handled
// by same_user.go), and a string that is also sliced (its witness is
// built from its slices).

// equalities are the equality variables of one question.
type equalities struct {
	vars  map[string]lit // by the two concrete paths, sorted, joined by NUL
	in    map[string]bool
	paths []*scalar // every path with a variable, in the order met
}

// shareCompared gives each of two generic paths compared with each
// other the other's constants, until every compared path has those of
// all the paths it is compared with through others: then "another
// value" means the same on both sides.
func (d *domains) shareCompared() {
	for changed := true; changed; {
		changed = false
		for _, pair := range d.compared {
			a, b := d.strs[pair[0]], d.strs[pair[1]]
			union := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a), b...))))
			for _, gen := range pair {
				if len(slices.Compact(slices.Sorted(slices.Values(slices.Clone(d.strs[gen]))))) != len(union) {
					d.strs[gen] = slices.Clone(union)
					changed = true
				}
			}
		}
	}
}

// eligible tells whether a string path may be compared by value: read
// whole, not an id or a tag, and not sliced anywhere in the question.
func (e *encoder) eligible(t *term) bool {
	if strings.HasSuffix(t.gen, ".id") || strings.HasSuffix(t.gen, "_id") || strings.HasSuffix(t.gen, "tags[*]") {
		return false
	}
	_, sliced := e.d.ints[lenPath(t.gen)]
	return !sliced
}

// stringsEqual is f's value where f compares two eligible strings; ok is
// false where it stays over-approximated.
func (e *encoder) stringsEqual(f *form) (_ value, ok bool) {
	if f.pathEq == "" || !e.eligible(f.left) || !e.eligible(f.right) {
		return value{}, false
	}
	px, py := e.concrete(f.left.path), e.concrete(f.right.path)
	x, y := e.scalar(px, &term{kind: tPath, typ: f.left.typ, path: px, gen: f.left.gen}),
		e.scalar(py, &term{kind: tPath, typ: f.right.typ, path: py, gen: f.right.gen})
	eq := litTrue
	if px != py {
		var same []lit
		for i, str := range x.strs[:len(x.strs)-1] {
			if j := slices.Index(y.strs[:len(y.strs)-1], str); j >= 0 {
				same = append(same, e.c.and(x.classes[i], y.classes[j]))
			}
		}
		same = append(same, e.eqVar(x, y))
		eq = e.c.or(same...)
	}
	if f.pathEq == "!=" {
		eq = -eq
	}
	return value{eq, e.readsErr(f)}, true
}

// another is the literal of s's last class: a value no constant names.
func another(s *scalar) lit { return s.classes[len(s.classes)-1] }

// eqVar is the variable "x and y are both another value, and equal".
func (e *encoder) eqVar(x, y *scalar) lit {
	e.addEqPath(x)
	e.addEqPath(y)
	return e.eq.vars[eqKey(x.path, y.path)]
}

func eqKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "\x00" + b
}

// addEqPath gives w a variable with every path met so far, each implying
// both are another value, and keeps every three of them transitive.
func (e *encoder) addEqPath(w *scalar) {
	if e.eq.in[w.path] {
		return
	}
	e.eq.in[w.path] = true
	for _, z := range e.eq.paths {
		v := e.c.fresh()
		e.c.clause(-v, another(w))
		e.c.clause(-v, another(z))
		e.eq.vars[eqKey(w.path, z.path)] = v
	}
	for i, a := range e.eq.paths {
		for _, b := range e.eq.paths[i+1:] {
			wa, wb, ab := e.eq.vars[eqKey(w.path, a.path)], e.eq.vars[eqKey(w.path, b.path)], e.eq.vars[eqKey(a.path, b.path)]
			e.c.clause(-wa, -ab, wb)
			e.c.clause(-wb, -ab, wa)
			e.c.clause(-wa, -wb, ab)
		}
	}
	e.eq.paths = append(e.eq.paths, w)
}

// equalValues gives each path with an equality variable that the model
// makes another value the value of its set of equal paths: named after
// the first path of the set, so that no constant of any such path
// equals it.
// Paths in one set get one value, paths in two sets two.
func (q *question) equalValues(model []bool) map[string]string {
	e := q.e
	out := map[string]string{}
	var named []string // every constant of every such path
	for _, s := range e.eq.paths {
		named = append(named, s.strs[:len(s.strs)-1]...)
	}
	for _, s := range e.eq.paths {
		if !modelValue(model, another(s)) {
			continue
		}
		rep := s.path
		for _, o := range e.eq.paths {
			if o.path < rep && modelValue(model, e.eq.vars[eqKey(s.path, o.path)]) {
				rep = o.path
			}
		}
		v := "other-" + rep
		for slices.Contains(named, v) {
			v += "'"
		}
		out[s.path] = v
	}
	return out
}
