package symbolic

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Paths are what the request holds, written as the language reads them:
// a root (a keyword, approvers, credentials, activity, time.now), then
// .field, [i] (an element), [a..b] (characters) or ['key'] (a map's).

var roots = func() []string {
	out := append([]string{"activity", "approvers", "credentials", "time.now"}, policylang.ConditionKeywords()...)
	// Longest first, so that eth.tx wins over a shorter prefix.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}()

// splitPath is a path's root and the rest ("" for the root itself), and
// the rest's last step and what comes before it.
func rootOf(path string) string {
	for _, r := range roots {
		if strings.HasPrefix(path, r) && (len(path) == len(r) || path[len(r)] == '.' || path[len(r)] == '[') {
			return r
		}
	}
	return ""
}

// lastStep splits off a path's last step: its parent and the step
// (".name", "[3]", "[0..10]", "['key']").
func lastStep(path string) (parent, step string) {
	if path[len(path)-1] == ']' {
		depth := 0
		for i := len(path) - 1; i >= 0; i-- {
			switch path[i] {
			case ']':
				depth++
			case '[':
				depth--
				if depth == 0 {
					return path[:i], path[i:]
				}
			}
		}
	}
	i := strings.LastIndexByte(path, '.')
	return path[:i], path[i:]
}

// presence is the literal that the path is present in the request: its
// keyword is carried, every field on the way exists, every element read
// is there and every range read is inside its string.
func (e *encoder) presence(path string) lit {
	if l, ok := e.pres[path]; ok {
		return l
	}
	var l lit
	if root := rootOf(path); root == path {
		l = e.keywordPresence(root)
	} else {
		parent, step := lastStep(path)
		up := e.presence(parent)
		switch {
		case strings.HasPrefix(step, "['"):
			l = e.c.and(up, e.c.fresh()) // a map's key may be missing
		case strings.Contains(step, ".."):
			lo, hi := sliceBounds(step)
			if lo < 0 || lo > hi {
				l = litFalse
			} else {
				l = e.c.and(up, e.lengthAtLeast(parent, hi))
			}
		case step[0] == '[':
			i, _ := strconv.Atoi(step[1 : len(step)-1])
			sl := e.slots(parent, genericOf(parent))
			if i < 0 || i >= len(sl.active) {
				l = litFalse
			} else {
				l = e.c.and(up, sl.active[i])
			}
		default:
			l = e.c.and(up, e.fieldPresence(parent, step[1:]))
		}
	}
	e.pres[path] = l
	return l
}

func sliceBounds(step string) (int64, int64) {
	a, b, _ := strings.Cut(step[1:len(step)-1], "..")
	lo, _ := strconv.ParseInt(a, 10, 64)
	hi, _ := strconv.ParseInt(b, 10, 64)
	return lo, hi
}

// lengthAtLeast: the string at path has at least n characters.
func (e *encoder) lengthAtLeast(path string, n int64) lit {
	if size, ok := sliceLength(path); ok {
		// A slice read of a slice: the outer slice, where present, has
		// its bounds' length.
		if size >= n {
			return litTrue
		}
		return litFalse
	}
	ls := e.length(path)
	var in []lit
	for i, cl := range ls.ints {
		if cl.lo.Cmp(big.NewInt(n)) >= 0 {
			in = append(in, ls.classes[i])
		}
	}
	return e.c.or(in...)
}

// length is the scalar of a string path's length, cut at the ends of its
// slices and the lengths of the constants it is compared with.
func (e *encoder) length(path string) *scalar {
	lp := lenPath(path)
	if s, ok := e.scalars[lp]; ok {
		return s
	}
	gen := genericOf(path)
	s := &scalar{path: lp, gen: lenPath(gen), typ: &policylang.Type{Kind: policylang.KindInt}}
	s.ints = intClasses(e.d.ints[lenPath(gen)], new(big.Int), maxInt128)
	s.classes = e.oneHot(len(s.ints))
	e.scalars[lp] = s
	return s
}

// fieldPresence is whether a present struct at parent has the field.
func (e *encoder) fieldPresence(parent, field string) lit {
	switch {
	case parent == "activity.params":
		return e.param(field)
	case parent == "activity":
		info := policyset.DescribeActivity(e.typ)
		v := map[string]string{"type": e.typ, "kind": info.Kind, "resource": info.Resource, "action": info.Action, "params": "-"}[field]
		if v == "" {
			return litFalse
		}
		return litTrue
	case parent == "eth.tx" && sometimesEthTx[field]:
		return e.c.fresh()
	}
	return litTrue
}

// sometimesEthTx are the eth.tx fields a real transaction may lack: from
// (a key without an address), the fee-market and blob fees (older types),
// and what only an uploaded ABI gives.
var sometimesEthTx = map[string]bool{
	"from": true, "max_fee_per_gas": true, "max_priority_fee_per_gas": true, "max_fee_per_blob_gas": true,
	"function_signature": true, "contract_call_args": true,
}

// slots are a list's elements, as many as the question's forms need.
func (e *encoder) slots(path, gen string) *slots {
	if s, ok := e.lists[path]; ok {
		return s
	}
	if path == "credentials" {
		// One credential per approver, in the approvers' order.
		sl := &slots{path: path, gen: gen, active: e.slots("approvers", "approvers").active}
		e.lists[path] = sl
		return sl
	}
	n := e.d.reserve[gen] + e.d.demand[gen]
	sl := &slots{path: path, gen: gen}
	if path == "approvers" {
		// The requester is always there, and first.
		n += 1 + e.d.demand["credentials"] + e.d.reserve["credentials"]
		sl.active = append(sl.active, litTrue)
	}
	for len(sl.active) < n {
		a := e.c.fresh()
		if len(sl.active) > 0 {
			e.c.clause(-a, sl.active[len(sl.active)-1])
		}
		sl.active = append(sl.active, a)
	}
	e.lists[path] = sl
	if path == "approvers" {
		e.distinctUsers(sl)
	}
	return sl
}

// distinctUsers: at most one approver per named id, and none a root user.
func (e *encoder) distinctUsers(sl *slots) {
	t := &policylang.Type{Kind: policylang.KindString}
	var ids []*scalar
	for i := range sl.active {
		p := "approvers[" + strconv.Itoa(i) + "].id"
		ids = append(ids, e.scalar(p, &term{kind: tPath, typ: t, path: p, gen: "approvers[*].id"}))
	}
	named := e.d.strs["approvers[*].id"]
	for k, id := range named {
		var holders []lit
		for i, s := range ids {
			holders = append(holders, e.c.and(sl.active[i], s.classes[k]))
		}
		if slices.Contains(e.rootIDs, id) {
			for _, h := range holders {
				e.c.clause(-h)
			}
			continue
		}
		e.c.atMostOne(holders)
	}
}

// scalar is the path's value; t says its type and generic path.
func (e *encoder) scalar(path string, t *term) *scalar {
	if alias, ok := credentialUser(path); ok {
		path = alias
		t = &term{kind: tPath, typ: t.typ, path: alias, gen: "approvers[*].id"}
	}
	if sl := t.slice; sl != nil && sl.base.slice == nil {
		// A slice of a slice is its base's slice (sliceTerm): one scalar
		// for the characters, whichever way they are written.
		path = e.concrete(sl.base.path) + sliceKey(sl.lo, sl.hi)
	}
	if s, ok := e.scalars[path]; ok {
		return s
	}
	gen := genericOf(path)
	s := &scalar{path: path, gen: gen, typ: t.typ}
	switch t.typ.Kind {
	case policylang.KindBool:
		s.boolLit = e.c.fresh()
	case policylang.KindString:
		s.strs = append(slices.Clone(e.d.strs[gen]), "")
		s.classes = e.oneHot(len(s.strs))
	default:
		lo, hi := intDomain(gen, t.typ)
		s.ints = intClasses(e.d.ints[gen], lo, hi)
		if gen == "time.now" && len(e.d.spans) > 0 && len(e.d.spans) <= 64 {
			s.cut = cutTime(e.d.ints[gen], e.d.spanKeys, e.d.spans)
			s.ints = s.cut.ints
		}
		s.classes = e.oneHot(len(s.ints))
	}
	e.scalars[path] = s
	if t.typ.Kind == policylang.KindString {
		e.stringLinks(s, t)
		e.fixActivity(s)
		if gen == "credentials[*].type" {
			e.c.clause(-s.classes[len(s.classes)-1]) // never "another value"
		}
	}
	return s
}

// fixActivity: activity.type, kind, resource and action are the type's.
func (e *encoder) fixActivity(s *scalar) {
	field, ok := strings.CutPrefix(s.path, "activity.")
	if !ok {
		return
	}
	info := policyset.DescribeActivity(e.typ)
	v, fixed := map[string]string{"type": e.typ, "kind": info.Kind, "resource": info.Resource, "action": info.Action}[field]
	if !fixed {
		return
	}
	i := slices.Index(s.strs[:len(s.strs)-1], v)
	if i < 0 {
		i = len(s.strs) - 1
	}
	e.c.clause(s.classes[i])
}

// credentialUser: a credential's user_id is its approver's id (one
// credential per approver).
func credentialUser(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "credentials[")
	if !ok {
		return "", false
	}
	i, field, ok := strings.Cut(rest, "]")
	if !ok || field != ".user_id" {
		return "", false
	}
	return "approvers[" + i + "].id", true
}

func (e *encoder) oneHot(n int) []lit {
	ls := make([]lit, n)
	for i := range ls {
		ls[i] = e.c.fresh()
	}
	e.c.exactlyOne(ls)
	return ls
}

// stringLinks ties a sliced string to its positions: the whole string
// and each slice read of it spell their classes out of one row of
// segments (slice_positions.go).
func (e *encoder) stringLinks(s *scalar, t *term) {
	sl := t.slice
	switch {
	case sl == nil:
		if _, cut := e.d.ints[lenPath(s.gen)]; cut {
			e.tieWhole(s)
		}
	case sl.base.slice == nil && sl.lo >= 0 && sl.lo <= sl.hi:
		e.scalar(e.concrete(sl.base.path), sl.base) // its length and classes too
		e.tieSlice(s, sl.base, sl.lo, sl.hi)
	}
	// Otherwise a range that is never inside its string: it always errs.
}
