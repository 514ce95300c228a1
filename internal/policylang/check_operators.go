package policylang

import (
	"regexp"
	"slices"
	"strings"
)

func (c *checker) binary(n *Binary) *Type {
	mark := len(c.used)
	x := c.check(n.X)
	left := c.used[mark:]
	mark = len(c.used)
	y := c.check(n.Y)
	right := c.used[mark:]
	switch n.Op {
	case "&&", "||":
		for _, side := range []struct {
			t *Type
			n Node
		}{{x, n.X}, {y, n.Y}} {
			if side.t.Kind != KindBool && side.t.Kind != KindAny {
				c.errorf(CodeType, side.n.Span(), "'%s' joins two bools, but this side is a %s", n.Op, side.t)
			}
		}
		if n.Op == "||" && walletOrKey(left, right) {
			c.warnf(CodeWalletOrKey, n.OpSp, "a request targets a wallet or a private key, never both, and every side of '||' "+
				"is evaluated, so this always ends in an evaluation error; write two policies instead")
		}
	case "==", "!=":
		if !c.quotedNumber(x, y, n) && !comparable(x, y) {
			c.errorf(CodeType, n.OpSp, "'%s' compares values of one type, but the left side is a %s and the right side a %s", n.Op, x, y)
		}
		c.valueSet(n.X, n.Y)
		c.valueSet(n.Y, n.X)
	case "<", "<=", ">", ">=":
		c.ordering(x, y, n)
	case "in":
		switch {
		case y.Kind == KindAny:
		case y.Kind != KindList:
			c.errorf(CodeType, n.Y.Span(), "'in' looks for a value in a list, but the right side is a %s", y)
		case !comparable(x, y.Elem):
			c.errorf(CodeType, n.OpSp, "'in' looks for a %s in a list of %s", x, y.Elem)
		}
		if l, ok := n.Y.(*ListLit); ok {
			for _, e := range l.Elems {
				c.valueSet(n.X, e)
			}
		}
	}
	return tBool
}

func walletOrKey(left, right []string) bool {
	has := func(kws []string, k string) bool { return slices.Contains(kws, k) }
	return (has(left, "wallet") && has(right, "private_key")) || (has(left, "private_key") && has(right, "wallet"))
}

func (c *checker) ordering(x, y *Type, n *Binary) {
	switch {
	case c.quotedNumber(x, y, n):
	case (x.numeric() || x.Kind == KindAny) && (y.numeric() || y.Kind == KindAny):
	case (x.Kind == KindTimestamp || x.Kind == KindAny) && (y.Kind == KindTimestamp || y.Kind == KindAny):
	case x.Kind == KindString || y.Kind == KindString:
		c.errorf(CodeType, n.OpSp, "'%s' orders numbers and timestamps; strings compare only with '==' and '!='", n.Op)
	default:
		c.errorf(CodeType, n.OpSp, "'%s' orders two numbers or two timestamps, but the left side is a %s and the right side a %s", n.Op, x, y)
	}
}

// numberText is the content of a quoted number: digits, or a placeholder
// such as <CHAIN_ID> of the documentation's examples.
var numberText = regexp.MustCompile(`^([0-9]+|<[A-Za-z0-9_]+>)$`)

// quotedNumber warns of an int compared with a quoted number, which two
// documentation pages show (eth.tx.chain_id == '8453') against the type
// table. Whether the service coerces is not documented, so it is a warning,
// not an error; the emulator compares the number.
func (c *checker) quotedNumber(x, y *Type, n *Binary) bool {
	var lit *StringLit
	switch {
	case x.numeric() && y.Kind == KindString:
		lit, _ = n.Y.(*StringLit)
	case y.numeric() && x.Kind == KindString:
		lit, _ = n.X.(*StringLit)
	}
	if lit == nil || !numberText.MatchString(lit.Value) {
		return false
	}
	c.warnf(CodeQuotedNumber, lit.Sp, "an int is compared with the string %s: write the number without quotes", quote(lit.Value))
	return true
}

// placeholder matches values written as <PLACEHOLDER>, which the
// documentation's examples leave for the reader to fill in.
var placeholder = regexp.MustCompile(`<[^>]*>`)

// valueSet warns when a string literal compared with a field that has a
// documented value set is not one of those values.
func (c *checker) valueSet(field, value Node) {
	key, ok := c.origin[field]
	lit, isLit := value.(*StringLit)
	if !ok || !isLit || placeholder.MatchString(lit.Value) {
		return
	}
	values, ok := cat.values[key]
	if !ok || slices.Contains(values, lit.Value) {
		return
	}
	listed := ""
	if len(values) <= 30 {
		quoted := make([]string, len(values))
		for i, v := range values {
			quoted[i] = quote(v)
		}
		listed = " (" + strings.Join(quoted, ", ") + ")"
	}
	c.warnf(CodeValueSet, lit.Sp, "%s is not a documented value of %s%s%s", quote(lit.Value), field, listed, didYouMean(lit.Value, values))
}

// methodUsage shows each list method as it is called.
var methodUsage = map[string]string{
	"any":      "x.any(v, predicate), true when the predicate holds for some element v",
	"all":      "x.all(v, predicate), true when the predicate holds for every element v",
	"filter":   "x.filter(v, predicate), the elements v for which the predicate holds",
	"contains": "x.contains(value), true when the list holds the value",
	"count":    "x.count(), the number of elements",
}

// notMethods explains methods of other languages that this one lacks.
var notMethods = map[string]string{
	"size":       "lists have count(): write x.count()",
	"length":     "lists have count(): write x.count()",
	"len":        "lists have count(): write x.count()",
	"exists":     "write x.any(v, predicate)",
	"some":       "write x.any(v, predicate)",
	"every":      "write x.all(v, predicate)",
	"exists_one": "write x.filter(v, predicate).count() == 1",
	"has":        "a field that may be absent cannot be tested; reading it is an evaluation error",
}

func (c *checker) method(n *Call) *Type {
	t := c.check(n.Recv)
	usage, known := methodUsage[n.Name]
	if !known {
		hint := notMethods[n.Name]
		if hint == "" {
			hint = "the methods are any, all, filter, contains and count, all of lists" + didYouMean(n.Name, []string{"any", "all", "filter", "contains", "count"})
		}
		c.errorf(CodeUnknownFunction, n.NameSp, "%s() is not a function of the policy language: %s", n.Name, hint)
		return tAny
	}
	elem := tAny
	switch t.Kind {
	case KindList:
		elem = t.Elem
	case KindAny:
	default:
		c.errorf(CodeType, n.NameSp, "%s() is a method of lists, but this is a %s", n.Name, t)
		return tAny
	}
	want := map[string]int{"any": 2, "all": 2, "filter": 2, "contains": 1, "count": 0}[n.Name]
	if len(n.Args) != want {
		c.errorf(CodeArity, n.NameSp, "%s() takes %d argument%s, not %d: %s", n.Name, want, plural(want), len(n.Args), usage)
		return tAny
	}
	switch n.Name {
	case "count":
		return tInt
	case "contains":
		if at := c.check(n.Args[0]); !comparable(elem, at) {
			c.errorf(CodeType, n.Args[0].Span(), "contains() looks for a %s in a list of %s", at, elem)
		}
		return tBool
	}
	v, ok := n.Args[0].(*Ident)
	if !ok {
		c.errorf(CodeUnbound, n.Args[0].Span(), "the first argument of %s() is a new variable name for each element, such as u: %s", n.Name, usage)
		return tAny
	}
	c.scope = append(c.scope, binding{v.Name, elem})
	pt := c.check(n.Args[1])
	c.scope = c.scope[:len(c.scope)-1]
	if pt.Kind != KindBool && pt.Kind != KindAny {
		c.errorf(CodeType, n.Args[1].Span(), "the predicate of %s() must be a bool, but this one is a %s", n.Name, pt)
	}
	if n.Name == "filter" {
		return listOf(elem)
	}
	return tBool
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// collectBinders records every variable name bound by any/all/filter.
func collectBinders(n Node, into map[string]bool) {
	walk(n, func(n Node) {
		if call, ok := n.(*Call); ok && call.Recv != nil && len(call.Args) == 2 {
			if id, ok := call.Args[0].(*Ident); ok {
				into[id.Name] = true
			}
		}
	})
}

// walk calls f on n and every node below it.
func walk(n Node, f func(Node)) {
	f(n)
	var kids []Node
	switch n := n.(type) {
	case *ListLit:
		kids = n.Elems
	case *Unary:
		kids = []Node{n.X}
	case *Binary:
		kids = []Node{n.X, n.Y}
	case *Select:
		kids = []Node{n.X}
	case *Index:
		kids = []Node{n.X, n.Index}
	case *Slice:
		kids = []Node{n.X, n.Lo, n.Hi}
	case *Call:
		kids = n.Args
		if n.Recv != nil {
			kids = append([]Node{n.Recv}, kids...)
		}
	}
	for _, k := range kids {
		walk(k, f)
	}
}
