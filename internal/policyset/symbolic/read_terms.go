package symbolic

// The terms of an expression: the values it reads (paths, with their
// indexes and slices), the variables its quantifiers bind, and the calls
// that give a value.

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

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
		// Its path is kept: compared with constants, it takes their type
		// (typed_values.go).
		return &term{kind: tFree, typ: t, path: path, gen: gen, why: "a value whose type depends on an uploaded ABI or IDL (" + gen + ")"}
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
	k := sliceKey(lo, hi)
	t := &term{kind: tPath, typ: tString, path: base.path + k, gen: base.gen + k, slice: &sliceOf{base: base, lo: lo, hi: hi, need: hi}}
	if in := base.slice; in != nil && lo >= 0 && lo <= hi && hi <= in.hi-in.lo {
		// A slice of a slice reads the first string's characters. Its
		// path stays as written, for its error (the outer slice's).
		t.gen = in.base.gen + sliceKey(in.lo+lo, in.lo+hi)
		t.slice = &sliceOf{base: in.base, lo: in.lo + lo, hi: in.lo + hi, need: in.need}
	}
	return t
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
