package symbolic

import (
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Region is a set of requests of one type that two policy sets decide
// differently, stated over the atoms of the changed policies: every
// request of the type whose atoms take these values and that the sets
// decide Before and After. Together a question's regions contain every
// request that moves, so no region means that nothing moves.
type Region struct {
	Type          string
	Before, After string
	// Atoms are the changed policies' comparisons, each true or false
	// in the region, in the order the policies read them.
	Atoms []AtomValue
	// Witness is a request of the region with the fewest approvers, each
	// integer at a constant (the closed end of a range) where the region
	// has one. Proved: policyset.Decide decides it Before and After.
	Witness   policyset.Request
	Proved    bool
	NotProved string
}

// AtomValue is one comparison of a changed policy and its value in a
// region: it holds, fails, or errs (it reads what the request lacks).
type AtomValue struct {
	Text  string
	Path  string
	Holds bool
	Errs  bool
	f     *form
}

// source is the atom as the policy wrote it.
func (a AtomValue) source() string { return a.f.src }

// MaxRegions caps the regions of one verdict pair, so that a change that
// moves requests in many ways costs a bounded number of questions; past
// it, Regions says how many more it counted.
const MaxRegions = 10

// Regions answers, for one type, which requests before and after decide
// differently, as regions over the atoms of the changed versions (those
// of after not in before, and of before not in after). more counts the
// regions past MaxRegions per pair; guarded is true when a question ran
// out of time, so the regions may be incomplete: no caller may then say
// "no change".
func Regions(typ string, before, after []policyset.Policy, changed []policyset.Policy, rootIDs []string) (out []Region, more int, guarded bool) {
	return RegionsWithin(nil, typ, before, after, changed, rootIDs)
}

// RegionsWithin is Regions with its searches within b: past it, a
// question that needs one is a not-proved region, and guarded is true.
func RegionsWithin(b *Budget, typ string, before, after []policyset.Policy, changed []policyset.Policy, rootIDs []string) (out []Region, more int, guarded bool) {
	before, after, changed = canonical(before), canonical(after), canonical(changed)
	// The witnesses are replayed on the sets as given; the question is
	// asked of them as they decide where the change's versions differ.
	replayBefore, replayAfter := before, after
	if bd, ok := bandOf(changed); ok {
		before, after = canonical(bd.restrict(before, changed)), canonical(bd.restrict(after, changed))
	}
	all := append(append(append([]policyset.Policy(nil), before...), after...), changed...)
	q := newQuestion(typ, all, rootIDs)
	q.e.c.budget = b
	defer q.e.c.release() // a report asks one question per change
	atoms := q.atoms(len(before)+len(after), len(all))
	vb, va := q.twoSets(len(before), len(after))
	for _, y := range verdictOrder {
		for _, x := range verdictOrder {
			if x == y {
				continue
			}
			sel := q.e.c.fresh()
			found := 0
			for {
				ans, model := q.e.c.solve(sel, vb[x], va[y])
				if ans == timedOut {
					guarded = true
					out = append(out, Region{Type: typ, Before: x, After: y, NotProved: q.e.c.notProved()})
					break
				}
				if ans == unsat {
					break
				}
				if found == MaxRegions {
					more++
					if more >= 100 {
						break
					}
				}
				// Each atom holds, fails or errs: an atom that errs has no
				// truth, so its value is left out of the cube.
				cube := make([]lit, 0, 2*len(atoms))
				r := Region{Type: typ, Before: x, After: y}
				for _, a := range atoms {
					if modelValue(model, a.err) {
						cube = append(cube, a.err)
						r.Atoms = append(r.Atoms, AtomValue{Text: a.text, Path: a.path, Errs: true, f: a.f})
						continue
					}
					holds := modelValue(model, a.v)
					cube = append(cube, -a.err, a.v)
					if !holds {
						cube[len(cube)-1] = -a.v
					}
					r.Atoms = append(r.Atoms, AtomValue{Text: a.text, Path: a.path, Holds: holds, f: a.f})
				}
				// The next region differs in some atom.
				q.e.c.clause(-sel, -q.e.c.and(cube...))
				if found < MaxRegions {
					found++
					r.Witness, r.Proved, r.NotProved = q.bestWitness(append(cube, vb[x], va[y]), model, func(req policyset.Request) bool {
						e := policyset.NewEvaluator(req)
						return policyset.DecideWith(e, replayBefore, req).Verdict == x && policyset.DecideWith(e, replayAfter, req).Verdict == y
					})
					out = append(out, r)
				}
				if len(atoms) == 0 {
					break // one region: the whole type
				}
			}
		}
	}
	return out, more, guarded
}

// atom is a changed policy's comparison, encoded: its truth v and its
// error err.
type atom struct {
	text, path string
	v, err     lit
	f          *form
}

// atoms encodes the comparisons of the policies pols[from:to] that read
// the request outside any quantifier, and the approver counts.
func (q *question) atoms(from, to int) []atom {
	var out []atom
	seen := map[lit]bool{}
	q.atomPaths = map[string]bool{}
	var walk func(f *form)
	walk = func(f *form) {
		if f == nil {
			return
		}
		switch f.op {
		case fAnd, fOr, fNot:
			for _, a := range f.args {
				walk(a)
			}
			return
		case fCmp:
			if f.cmp == "read" || (f.left.kind == tPath && f.left.path[0] == '$') {
				return
			}
		case fBoolPath:
			if f.path.path[0] == '$' {
				return
			}
		case fAny, fAll:
			if f.list.path.path[0] == '$' {
				return
			}
		case fFree:
			// Two strings compared with each other, where decided
			// (strings_equal.go): "eth.tx.to == eth.tx.from" holds or not;
			// a weekly CronSpan (time_classes.go).
			if f.cron != nil {
				break
			}
			if f.pathEq == "" || f.left.path[0] == '$' || f.right.path[0] == '$' || !q.e.eligible(f.left) || !q.e.eligible(f.right) {
				return
			}
		default:
			return
		}
		if activityValue(f, q.typ) != tvUnknown {
			return // fixed by the type itself
		}
		x := q.e.form(f)
		v := x.v
		if v == litTrue || v == litFalse || seen[v] || seen[-v] {
			return
		}
		seen[v] = true
		path := ""
		if f.cron != nil {
			path = "time.now"
		} else if f.left != nil && f.left.kind == tPath {
			path = f.left.gen
		} else if f.path != nil {
			path = f.path.gen
		}
		out = append(out, atom{text: formText(f), path: path, v: v, err: x.err, f: f})
		q.atomPaths[path] = true
	}
	for _, pf := range q.forms[from:to] {
		walk(pf.cond)
		walk(pf.cons)
		walk(pf.timeF)
	}
	return out
}

// bestWitness is a request of the cube with the fewest approvers, and
// each integer the atoms read at a constant where one lies in the cube;
// ok tells whether it decides as claimed.
func (q *question) bestWitness(assume []lit, model []bool, claims func(policyset.Request) bool) (policyset.Request, bool, string) {
	// The fewest approvers: slots are filled in order, so "at most m"
	// (slot m inactive) is monotone in m. Down from the model's count, one
	// fewer at a time: a model is usually at or next to the least, so
	// this asks once or twice where a search over every slot asks more.
	sl := q.e.slots("approvers", "approvers")
	approvers := func(model []bool) int {
		n := 0
		for n < len(sl.active) && modelValue(model, sl.active[n]) {
			n++
		}
		return n
	}
	least := approvers(model)
	for least > 1 {
		ans, got := q.e.c.solve(append(assume, -sl.active[least-1])...)
		if ans != sat {
			break
		}
		model, least = got, min(least-1, approvers(got))
	}
	if least < len(sl.active) {
		assume = append(assume, -sl.active[least])
	}
	for _, path := range q.e.scalarsSorted() {
		s := q.e.scalars[path]
		if s.ints == nil || strings.HasPrefix(path, "len(") || !q.atomPaths[s.gen] {
			continue
		}
		point := func(k int) bool { return s.ints[k].lo.Cmp(s.ints[k].hi) == 0 }
		cur := classOf(model, s.classes)
		if point(cur) && q.e.d.isConst(s.gen, s.ints[cur].lo) {
			continue
		}
	prefer:
		for _, constant := range []bool{true, false} {
			for k := len(s.ints) - 1; k >= 0; k-- {
				if k == cur || !point(k) || q.e.d.isConst(s.gen, s.ints[k].lo) != constant {
					continue
				}
				if ans, m := q.e.c.solve(append(assume, s.classes[k])...); ans == sat {
					assume, model = append(assume, s.classes[k]), m
					break prefer
				}
			}
		}
	}
	// Each sliced string as short as the region allows: the model's
	// choice of a length past the last slice read is arbitrary.
	for _, path := range q.e.scalarsSorted() {
		s := q.e.scalars[path]
		if s.ints == nil || !strings.HasPrefix(path, "len(") {
			continue
		}
		for k := range classOf(model, s.classes) {
			if ans, m := q.e.c.solve(append(assume, s.classes[k])...); ans == sat {
				assume, model = append(assume, s.classes[k]), m
				break
			}
		}
	}
	req, err := q.witness(model)
	if err != nil {
		return req, false, err.Error()
	}
	if !claims(req) {
		return req, false, q.overs()
	}
	return req, true, ""
}
