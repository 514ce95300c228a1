package policylang

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
)

// Check checks a parsed expression of field f against the catalogue. Errors
// are what the service refuses or can never evaluate; warnings are likely
// mistakes that it may still accept (unknown fields and values: it may know
// newer ones than its documentation).
func Check(n Node, f Field) Diagnostics { return check(n, f).diags }

// check runs the checker over n; it holds the findings and the keywords
// the expression reads.
func check(n Node, f Field) *checker {
	c := &checker{field: f, origin: map[Node]string{}, binders: map[string]bool{}}
	collectBinders(n, c.binders)
	t := c.check(n)
	if t.Kind != KindBool && t.Kind != KindAny {
		c.errorf(CodeNotBool, n.Span(), "a %s expression must be a bool (true or false), but this one is a %s; "+
			"compare it with something, e.g. with '==' or '>='", f, t)
	}
	return c
}

// Compile parses and checks src for field f. The program is nil when there
// is an error; the diagnostics hold the warnings either way.
func Compile(src string, f Field) (*Program, Diagnostics) {
	n, err := Parse(src)
	if err != nil {
		return nil, Diagnostics{err.(*Diagnostic)} //nolint:forcetypeassert // Parse returns only *Diagnostic
	}
	c := check(n, f)
	if c.diags.HasError() {
		return nil, c.diags
	}
	p := &Program{root: n, field: f, spans: map[*Call]*cronSpan{}, reads: map[string]bool{}}
	for _, k := range c.used {
		p.reads[k] = true
	}
	walk(n, func(n Node) {
		if call, ok := n.(*Call); ok && call.Recv == nil && call.Name == "CronSpan" {
			p.reads["time.now"] = true // CronSpan is about the request's time
			// The checker has read these literals already.
			args := [3]string{}
			for i, a := range call.Args {
				args[i] = a.(*StringLit).Value //nolint:forcetypeassert // checked: string literals
			}
			p.spans[call], _ = parseCronSpan(args[0], args[1], args[2])
		}
	})
	return p, c.diags
}

type checker struct {
	field   Field
	diags   Diagnostics
	scope   []binding       // variables bound by enclosing any/all/filter, innermost last
	binders map[string]bool // every name bound anywhere, to tell "unbound" from "unknown"
	origin  map[Node]string // "Struct.field" a node reads, for value sets
	used    []string        // keywords resolved so far, in order
}

type binding struct {
	name string
	t    *Type
}

func (c *checker) errorf(code Code, sp Span, format string, args ...any) {
	c.diags = append(c.diags, &Diagnostic{Severity: SeverityError, Code: code, Span: sp, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) warnf(code Code, sp Span, format string, args ...any) {
	c.diags = append(c.diags, &Diagnostic{Severity: SeverityWarning, Code: code, Span: sp, Message: fmt.Sprintf(format, args...)})
}

var (
	maxInt128  = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
)

// check returns the type of n. After an error it returns any, so that one
// mistake is reported once and not again by every enclosing node.
func (c *checker) check(n Node) *Type {
	switch n := n.(type) {
	case *BoolLit:
		return tBool
	case *StringLit:
		return tString
	case *IntLit:
		switch {
		case n.Value.Cmp(maxInt128) <= 0:
			return tInt
		case n.Value.Cmp(maxUint256) <= 0:
			return tUint
		}
		c.errorf(CodeBadLiteral, n.Sp, "%s is above the largest integer the language has (2^256 - 1)", n.Value)
		return tAny
	case *ListLit:
		return c.list(n)
	case *Ident:
		return c.name(n.Name, n.Sp)
	case *Select:
		return c.selectField(n)
	case *Index:
		return c.index(n)
	case *Slice:
		return c.slice(n)
	case *Unary:
		if t := c.check(n.X); t.Kind != KindBool && t.Kind != KindAny {
			c.errorf(CodeType, n.X.Span(), "'!' negates a bool, not a %s", t)
		}
		return tBool
	case *Binary:
		return c.binary(n)
	case *Call:
		if n.Recv == nil {
			return c.function(n)
		}
		return c.method(n)
	}
	panic(fmt.Sprintf("policylang: checker met a %T; this is always a bug in policylang", n))
}

func (c *checker) list(n *ListLit) *Type {
	elem := tAny
	for _, e := range n.Elems {
		t := c.check(e)
		if !comparable(elem, t) {
			c.errorf(CodeType, e.Span(), "the elements of a list must all have one type: this one is a %s, an earlier one a %s", t, elem)
			continue
		}
		if elem.Kind == KindAny {
			elem = t
		}
	}
	return listOf(elem)
}

// name resolves a bare name: a variable of an enclosing any/all/filter, or
// a keyword of the field.
func (c *checker) name(name string, sp Span) *Type {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i].name == name {
			return c.scope[i].t
		}
	}
	return c.keyword(name, sp)
}

func (c *checker) keyword(name string, sp Span) *Type {
	if t, ok := cat.keywords[c.field][name]; ok {
		c.used = append(c.used, name)
		return t
	}
	if f, ok := keywordField(name); ok {
		c.errorf(CodeWrongField, sp, "%s is a keyword of the %s field and cannot be used in %s; the %s keywords are %s",
			name, f, c.field, c.field, strings.Join(keywordsOf(c.field), ", "))
		return tAny
	}
	if cat.namespaces[name] {
		c.errorf(CodeUnknownKeyword, sp, "%s alone is not a keyword; %s keywords are %s", name, c.field, strings.Join(keywordsOf(c.field), ", "))
		return tAny
	}
	if c.binders[name] {
		c.errorf(CodeUnbound, sp, "%s is not bound here: a variable of any/all/filter exists only inside the predicate of the call that names it", name)
		return tAny
	}
	c.errorf(CodeUnknownKeyword, sp, "unknown name %s: the %s field can use %s, and the variables of enclosing any/all/filter calls%s",
		name, c.field, strings.Join(keywordsOf(c.field), ", "), didYouMean(name, keywordsOf(c.field)))
	return tAny
}

// bound tells whether name is a variable of an enclosing call.
func (c *checker) bound(name string) bool {
	return slices.ContainsFunc(c.scope, func(b binding) bool { return b.name == name })
}

func (c *checker) selectField(n *Select) *Type {
	// A dotted keyword (eth.tx, time.now) is one name.
	if id, ok := n.X.(*Ident); ok && !c.bound(id.Name) && cat.namespaces[id.Name] {
		full := id.Name + "." + n.Field
		if _, known := keywordField(full); known {
			return c.keyword(full, n.Sp)
		}
		var same []string
		for _, kw := range keywordsOf(c.field) {
			if strings.HasPrefix(kw, id.Name+".") {
				same = append(same, kw)
			}
		}
		c.errorf(CodeUnknownKeyword, n.Sp, "%s is not a keyword of the %s field (its keywords are %s)%s",
			full, c.field, strings.Join(keywordsOf(c.field), ", "), didYouMean(full, same))
		return tAny
	}
	t := c.check(n.X)
	switch t.Kind {
	case KindAny:
		return tAny
	case KindStruct:
		if ft, ok := cat.structs[t.Struct][n.Field]; ok {
			c.origin[n] = t.Struct + "." + n.Field
			return ft
		}
		c.warnf(CodeUnknownField, n.FieldSp, "%s has no documented field %q%s (documented: %s)",
			t.Struct, n.Field, didYouMean(n.Field, structFields(t.Struct)), strings.Join(structFields(t.Struct), ", "))
		return tAny
	case KindMap:
		c.warnf(CodeMapDot, n.FieldSp, "the values of a map are read with ['key']: write [%s] rather than .%s", quote(n.Field), n.Field)
		return t.Elem
	case KindList:
		switch n.Field {
		case "count":
			c.warnf(CodeBareCount, n.FieldSp, "count is documented with parentheses: write count()")
			return tInt
		case "any", "all", "filter", "contains":
			c.errorf(CodeArity, n.FieldSp, "%s is a method and needs its arguments: %s", n.Field, methodUsage[n.Field])
			return tAny
		}
	}
	c.errorf(CodeType, n.FieldSp, "a %s has no fields, so .%s cannot be read%s", t, n.Field, listHint(t))
	return tAny
}

func listHint(t *Type) string {
	if t.Kind == KindList {
		return "; a list is read with [index], any(), all(), filter(), contains() and count()"
	}
	return ""
}

// structFields lists the fields of a struct, sorted.
func structFields(name string) []string { return slices.Sorted(maps.Keys(cat.structs[name])) }

func quote(s string) string { return "'" + s + "'" }

func (c *checker) index(n *Index) *Type {
	t, it := c.check(n.X), c.check(n.Index)
	switch t.Kind {
	case KindAny:
		return tAny
	case KindList, KindString:
		if !it.numeric() && it.Kind != KindAny {
			c.errorf(CodeType, n.Index.Span(), "a %s is indexed by an int position, not a %s", t, it)
		}
		if t.Kind == KindString {
			return tString
		}
		return t.Elem
	case KindMap:
		if it.Kind != KindString && it.Kind != KindAny {
			c.errorf(CodeType, n.Index.Span(), "a map is indexed by a string key such as ['name'], not a %s", it)
		}
		return t.Elem
	}
	c.errorf(CodeType, n.Sp, "a %s cannot be indexed: only lists, strings and maps can", t)
	return tAny
}

func (c *checker) slice(n *Slice) *Type {
	t := c.check(n.X)
	for _, b := range []Node{n.Lo, n.Hi} {
		if bt := c.check(b); !bt.numeric() && bt.Kind != KindAny {
			c.errorf(CodeType, b.Span(), "slice bounds are int positions, not a %s", bt)
		}
	}
	if t.Kind != KindList && t.Kind != KindString && t.Kind != KindAny {
		c.errorf(CodeType, n.Sp, "a %s cannot be sliced: only lists and strings can", t)
		return tAny
	}
	return t
}
