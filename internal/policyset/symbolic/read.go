package symbolic

import (
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

// readExpr reads the syntax tree of an expression of field f that
// compiled (an expression that does not is no form: the policy is broken,
// readPolicyForms).
func readExpr(f policylang.Field, root policylang.Node, next *int, strict bool) *form {
	r := &reader{field: f, next: next, strict: strict}
	return r.boolForm(root)
}

func free(why, key string) *form { return &form{op: fFree, why: why, key: key, errFree: true} }

func (r *reader) boolForm(n policylang.Node) *form {
	f := r.boolFormOf(n)
	if f.src == "" {
		f.src = n.String()
	}
	return f
}

func (r *reader) boolFormOf(n policylang.Node) *form {
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
	if f, ok := typedValueCmp(n, x, y); ok {
		return f
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
		if wholeStrings(x, y) && (n.Op == "==" || n.Op == "!=") {
			f.pathEq, f.left, f.right = n.Op, x, y
		}
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
			f.cron = weeklyWindow(n)
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
