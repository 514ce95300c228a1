package symbolic

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// reader reads one expression into a form. It follows the evaluator's
// resolution of names (a bound variable first, then a dotted keyword,
// then a keyword) and the checker's types; the expression has compiled,
// so every name resolves and the operands' types fit.
type reader struct {
	field policylang.Field
	// strict reads a field the catalogue does not know as an error
	// (MissingField, as the engine evaluates it), for "never applies by
	// the catalogue"; otherwise it is over-approximated.
	strict bool
	scope  []binding // innermost last
	next   *int      // numbers the variables, unique per policy
}

type binding struct {
	name, id, gen string // the source name, "$n", the generic element path
	typ           *policylang.Type
}

// readExpr reads src of field f; an expression that does not parse or
// compile is an error form (it always errs).
func readExpr(f policylang.Field, src string, next *int, strict bool) *form {
	n, err := policylang.Parse(src)
	if err != nil {
		return nil
	}
	r := &reader{field: f, next: next, strict: strict}
	return r.boolForm(n)
}

func free(why, key string) *form { return &form{op: fFree, why: why, key: key, errFree: true} }

func (r *reader) boolForm(n policylang.Node) *form {
	switch n := n.(type) {
	case *policylang.BoolLit:
		return &form{op: fConst, val: n.Value}
	case *policylang.Unary:
		return &form{op: fNot, args: []*form{r.boolForm(n.X)}}
	case *policylang.Binary:
		switch n.Op {
		case "&&":
			return &form{op: fAnd, args: []*form{r.boolForm(n.X), r.boolForm(n.Y)}}
		case "||":
			return &form{op: fOr, args: []*form{r.boolForm(n.X), r.boolForm(n.Y)}}
		}
		return r.comparison(n)
	case *policylang.Call:
		return r.call(n)
	}
	t := r.term(n)
	switch {
	case t.kind == tErr:
		return &form{op: fErr}
	case t.kind == tPath && t.typ.Kind == policylang.KindBool:
		return &form{op: fBoolPath, path: t}
	case t.kind == tConst:
		if b, ok := t.val.(bool); ok {
			return &form{op: fConst, val: b}
		}
	case t.kind == tFree:
		return free(t.why, n.String())
	}
	return free("a "+t.typ.String()+" used as a bool", n.String())
}

func (r *reader) comparison(n *policylang.Binary) *form {
	x, y := r.term(n.X), r.term(n.Y)
	if x.kind == tErr || y.kind == tErr {
		return &form{op: fErr}
	}
	for _, t := range []*term{x, y} {
		if t.kind == tFree {
			return withReads(free(t.why, n.String()), x, y)
		}
	}
	if n.Op == "in" {
		switch y.kind {
		case tList:
			return &form{op: fCmp, cmp: "in", left: x, right: y}
		case tListRef:
			return r.contains(y.list, x, n.String())
		}
		return withReads(free("'in' over a "+y.typ.String(), n.String()), x, y)
	}
	// A comparison is encoded where one side is a constant (or a count
	// with a constant); two of the request's values compared with each
	// other are over-approximated.
	if y.kind != tConst && x.kind == tConst {
		x, y = y, x
		n = &policylang.Binary{Op: flip(n.Op), X: n.Y, Y: n.X}
	}
	if y.kind != tConst || (x.kind != tPath && x.kind != tCount) {
		f := withReads(free("a comparison of two of the request's values", n.String()), x, y)
		f.errFree = false // values of one type (the checker saw to it) compare without error
		return f
	}
	if x.kind == tPath && x.typ.Kind != policylang.KindString && x.typ.Kind != policylang.KindBool && !numeric(x.typ) &&
		x.typ.Kind != policylang.KindTimestamp {
		return withReads(free("a comparison of a "+x.typ.String(), n.String()), x, y)
	}
	return &form{op: fCmp, cmp: n.Op, left: x, right: y}
}

// withReads keeps the paths a free form reads, so that their errors (an
// absent keyword) still count: an over-approximated comparison of
// eth.tx.to errs where eth.tx is absent.
func withReads(f *form, ts ...*term) *form {
	for _, t := range ts {
		switch t.kind {
		case tPath:
			f.args = append(f.args, &form{op: fCmp, cmp: "read", left: t})
		case tListRef, tCount:
			f.args = append(f.args, &form{op: fAny, list: t.list, body: &form{op: fConst, val: true}})
		}
	}
	return f
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

func numeric(t *policylang.Type) bool {
	return t.Kind == policylang.KindInt || t.Kind == policylang.KindUint
}

func (r *reader) contains(l *listRef, item *term, text string) *form {
	if item.kind != tConst {
		return withReads(free("a list searched for one of the request's values", text), item, &term{kind: tListRef, list: l})
	}
	id := r.bindNew("", l)
	el := &term{kind: tPath, typ: l.elemType(), path: id.id, gen: id.gen}
	body := &form{op: fCmp, cmp: "==", left: el, right: item}
	r.scope = r.scope[:len(r.scope)-1]
	return &form{op: fAny, list: l, bind: id.id, body: body}
}

func (r *reader) call(n *policylang.Call) *form {
	if n.Recv == nil {
		if n.Name == "CronSpan" {
			f := free("CronSpan", "CronSpan:"+n.String())
			f.errFree = false // it reads time.now, which every request has
			f.args = append(f.args, &form{op: fCmp, cmp: "read", left: &term{kind: tPath, typ: &policylang.Type{Kind: policylang.KindTimestamp},
				path: "time.now", gen: "time.now"}})
			return f
		}
		return free(n.Name+"()", n.String())
	}
	recv := r.term(n.Recv)
	if recv.kind == tErr {
		return &form{op: fErr}
	}
	if recv.kind == tFree {
		return free(recv.why, n.String())
	}
	if recv.kind != tListRef {
		return free(n.Name+"() of a "+recv.typ.String(), n.String())
	}
	switch n.Name {
	case "contains":
		return r.contains(recv.list, r.term(n.Args[0]), n.String())
	case "any", "all":
		v, _ := n.Args[0].(*policylang.Ident)
		b := r.bindNew(v.Name, recv.list)
		body := r.boolForm(n.Args[1])
		r.scope = r.scope[:len(r.scope)-1]
		op := fAny
		if n.Name == "all" {
			op = fAll
		}
		return &form{op: op, list: recv.list, bind: b.id, body: body}
	}
	return free(n.Name+"() used as a bool", n.String())
}

// bindNew binds name to the elements of l, as "$n".
func (r *reader) bindNew(name string, l *listRef) binding {
	*r.next++
	b := binding{name: name, id: "$" + strconv.Itoa(*r.next), gen: l.path.gen + "[*]", typ: l.elemType()}
	r.scope = append(r.scope, b)
	return b
}

func (r *reader) lookup(name string) (binding, bool) {
	for i := len(r.scope) - 1; i >= 0; i-- {
		if r.scope[i].name == name {
			return r.scope[i], true
		}
	}
	return binding{}, false
}

var tString = &policylang.Type{Kind: policylang.KindString}

func (r *reader) term(n policylang.Node) *term {
	switch n := n.(type) {
	case *policylang.StringLit:
		return &term{kind: tConst, typ: tString, val: n.Value}
	case *policylang.IntLit:
		return &term{kind: tConst, typ: &policylang.Type{Kind: policylang.KindInt}, val: n.Value}
	case *policylang.BoolLit:
		return &term{kind: tConst, typ: &policylang.Type{Kind: policylang.KindBool}, val: n.Value}
	case *policylang.ListLit:
		out := &term{kind: tList, typ: &policylang.Type{Kind: policylang.KindList}}
		for _, e := range n.Elems {
			el := r.term(e)
			if el.kind != tConst {
				return &term{kind: tFree, typ: out.typ, why: "a list literal of the request's values"}
			}
			out.elems = append(out.elems, el)
		}
		return out
	case *policylang.Ident:
		if b, ok := r.lookup(n.Name); ok {
			return r.pathTerm(b.id, b.gen, b.typ)
		}
		t, ok := keywordType(r.field, n.Name)
		if !ok {
			return &term{kind: tFree, typ: anyType, why: "the name " + n.Name}
		}
		return r.pathTerm(n.Name, n.Name, t)
	case *policylang.Select:
		return r.selectTerm(n)
	case *policylang.Index:
		return r.index(n)
	case *policylang.Slice:
		return r.slice(n)
	case *policylang.Call:
		return r.callTerm(n)
	}
	return &term{kind: tFree, typ: anyType, why: fmt.Sprintf("a %T used as a value", n)}
}

var anyType = &policylang.Type{Kind: policylang.KindAny}

// pathTerm is a path of type t: a list is a list reference.
func (r *reader) pathTerm(path, gen string, t *policylang.Type) *term {
	p := &term{kind: tPath, typ: t, path: path, gen: gen}
	switch t.Kind {
	case policylang.KindList:
		return &term{kind: tListRef, typ: t, list: &listRef{path: p}}
	case policylang.KindAny:
		return &term{kind: tFree, typ: t, why: "a value whose type depends on an uploaded ABI or IDL (" + gen + ")"}
	}
	return p
}

func keywordType(f policylang.Field, name string) (*policylang.Type, bool) {
	switch name {
	case "activity":
		return &policylang.Type{Kind: policylang.KindStruct, Struct: "Activity"}, true
	case "approvers":
		return &policylang.Type{Kind: policylang.KindList, Elem: &policylang.Type{Kind: policylang.KindStruct, Struct: "User"}}, true
	case "credentials":
		return &policylang.Type{Kind: policylang.KindList, Elem: &policylang.Type{Kind: policylang.KindStruct, Struct: "Credential"}}, true
	case "time.now":
		return &policylang.Type{Kind: policylang.KindTimestamp}, true
	}
	if f != policylang.FieldCondition {
		return nil, false
	}
	return policylang.KeywordType(name)
}

func (r *reader) selectTerm(n *policylang.Select) *term {
	if id, ok := n.X.(*policylang.Ident); ok {
		if _, bound := r.lookup(id.Name); !bound {
			full := id.Name + "." + n.Field
			if t, ok := keywordType(r.field, full); ok {
				return r.pathTerm(full, full, t)
			}
		}
	}
	x := r.term(n.X)
	switch {
	case x.kind == tFree || x.kind == tErr:
		return x
	case x.kind == tListRef && n.Field == "count":
		return &term{kind: tCount, typ: &policylang.Type{Kind: policylang.KindInt}, list: x.list}
	case x.kind != tPath || x.typ.Kind != policylang.KindStruct:
		return &term{kind: tFree, typ: anyType, why: "the field " + n.Field + " of a " + x.typ.String()}
	}
	t, ok := policylang.FieldType(x.typ.Struct, n.Field)
	if !ok && r.strict {
		return &term{kind: tErr, typ: anyType}
	}
	if !ok {
		// A field the catalogue does not know: the service may know it
		// (its documentation lags), so its value is over-approximated.
		return &term{kind: tFree, typ: anyType, why: "the field " + x.gen + "." + n.Field + ", which the catalogue does not know"}
	}
	return inherit(r.pathTerm(x.path+"."+n.Field, x.gen+"."+n.Field, t), x)
}

// inherit gives t the index reads of the path it was read from.
func inherit(t, from *term) *term {
	if len(from.reads) > 0 {
		t.reads = append(append([]slotRead(nil), from.reads...), t.reads...)
		if t.list != nil {
			t.list.path.reads = t.reads
		}
	}
	return t
}

func (r *reader) index(n *policylang.Index) *term {
	x, i := r.term(n.X), r.term(n.Index)
	if x.kind == tFree || x.kind == tErr {
		return x
	}
	if x.kind == tPath && x.typ.Kind == policylang.KindMap {
		key, ok := i.val.(string)
		if i.kind != tConst || !ok {
			return &term{kind: tFree, typ: anyType, why: "a map read with a key that is not a constant"}
		}
		k := "['" + key + "']"
		return inherit(r.pathTerm(x.path+k, x.gen+k, x.typ.Elem), x)
	}
	pos, ok := constInt(i)
	if !ok || !pos.IsInt64() {
		return &term{kind: tFree, typ: anyType, why: "an index that is not a constant"}
	}
	switch {
	case x.kind == tListRef && len(x.list.filters) == 0:
		k := "[" + pos.String() + "]"
		t := inherit(r.pathTerm(x.list.path.path+k, x.list.path.gen+"[*]", x.typ.Elem), x.list.path)
		t.reads = append(t.reads, slotRead{gen: x.list.path.gen, pos: pos.Int64()})
		if t.list != nil {
			t.list.path.reads = t.reads
		}
		return t
	case x.kind == tPath && x.typ.Kind == policylang.KindString:
		return inherit(sliceTerm(x, pos.Int64(), pos.Int64()+1), x)
	}
	return &term{kind: tFree, typ: anyType, why: "an index into a " + x.typ.String()}
}

func (r *reader) slice(n *policylang.Slice) *term {
	x, lo, hi := r.term(n.X), r.term(n.Lo), r.term(n.Hi)
	if x.kind == tFree || x.kind == tErr {
		return x
	}
	a, okA := constInt(lo)
	b, okB := constInt(hi)
	if !okA || !okB || !a.IsInt64() || !b.IsInt64() {
		return &term{kind: tFree, typ: x.typ, why: "a slice whose bounds are not constants"}
	}
	if x.kind != tPath || x.typ.Kind != policylang.KindString {
		return &term{kind: tFree, typ: x.typ, why: "a slice of a " + x.typ.String()}
	}
	return inherit(sliceTerm(x, a.Int64(), b.Int64()), x)
}

func sliceTerm(base *term, lo, hi int64) *term {
	k := fmt.Sprintf("[%d..%d]", lo, hi)
	return &term{kind: tPath, typ: tString, path: base.path + k, gen: base.gen + k, slice: &sliceOf{base: base, lo: lo, hi: hi}}
}

func (r *reader) callTerm(n *policylang.Call) *term {
	if n.Recv == nil {
		if n.Name == "Timestamp" && len(n.Args) == 1 {
			if lit, ok := n.Args[0].(*policylang.StringLit); ok {
				if ns, ok := timestampNanos(lit.Value); ok {
					return &term{kind: tConst, typ: &policylang.Type{Kind: policylang.KindTimestamp}, val: ns}
				}
			}
		}
		return &term{kind: tFree, typ: anyType, why: n.Name + "()"}
	}
	recv := r.term(n.Recv)
	if recv.kind == tFree || recv.kind == tErr {
		return recv
	}
	if recv.kind != tListRef {
		return &term{kind: tFree, typ: anyType, why: n.Name + "() of a " + recv.typ.String()}
	}
	switch n.Name {
	case "count":
		return &term{kind: tCount, typ: &policylang.Type{Kind: policylang.KindInt}, list: recv.list}
	case "filter":
		v, _ := n.Args[0].(*policylang.Ident)
		b := r.bindNew(v.Name, recv.list)
		body := r.boolForm(n.Args[1])
		r.scope = r.scope[:len(r.scope)-1]
		l := &listRef{path: recv.list.path, filters: append(append([]filter(nil), recv.list.filters...), filter{bind: b.id, body: body})}
		return &term{kind: tListRef, typ: recv.typ, list: l}
	}
	return &term{kind: tFree, typ: anyType, why: n.Name + "() used as a value"}
}

// genericOf rewrites a concrete path's slot indexes as [*].
func genericOf(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '[' && i+1 < len(path) && path[i+1] >= '0' && path[i+1] <= '9' {
			j := i + 1
			for j < len(path) && path[j] >= '0' && path[j] <= '9' {
				j++
			}
			if j < len(path) && path[j] == ']' {
				b.WriteString("[*]")
				i = j
				continue
			}
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

var _ = big.NewInt
