package policylang

import (
	"fmt"
	"math/big"
	"time"
)

// Env holds the request's data by keyword ("activity", "eth.tx",
// "approvers", "time.now"). Values are plain Go: bool, string, integers
// (*big.Int, int or int64), []any for lists, map[string]any for structs and
// maps, and time.Time for timestamps. A keyword the request does not have is
// left out: reading it is an evaluation error, as in the service.
type Env map[string]any

// Program is a checked expression, ready to evaluate.
type Program struct {
	root  Node
	field Field
	spans map[*Call]*cronSpan // CronSpan calls, parsed once
	reads map[string]bool     // the keywords it reads
}

// Field is the field the program was checked for.
func (p *Program) Field() Field { return p.field }

// Root is the program's syntax tree, as Parse gives it; callers read it
// and never change it.
func (p *Program) Root() Node { return p.root }

// Reads tells whether the program reads keyword ("time.now", "approvers",
// ...), by name or, for time.now, through CronSpan.
func (p *Program) Reads(keyword string) bool { return p.reads[keyword] }

// EvalError is an evaluation error: a keyword or field the request does not
// have, an index out of range, values that cannot be compared. It makes the
// policy's outcome an error.
type EvalError struct {
	Span    Span
	Message string
}

func (e *EvalError) Error() string { return e.Span.Start.String() + ": " + e.Message }

func evalErr(n Node, format string, args ...any) *EvalError {
	return &EvalError{Span: n.Span(), Message: fmt.Sprintf(format, args...)}
}

// Eval evaluates the program against env. Every operand is evaluated (no
// short-circuit), and any error makes the result an error, however the rest
// of the expression would have come out: this is the service's rule.
func (p *Program) Eval(env Env) (bool, error) {
	e := &evaluator{env: env, prog: p}
	return e.evalBool(p.root, "the expression gave a %s, not a bool")
}

// evalBool evaluates n, which must give a bool; otherwise the error is
// format with args and, last, the kind of value n gave.
func (e *evaluator) evalBool(n Node, format string, args ...any) (bool, error) {
	v, err := e.eval(n)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, evalErr(n, format, append(args, kindOf(v))...)
	}
	return b, nil
}

type evaluator struct {
	env   Env
	prog  *Program
	scope []boundValue
}

type boundValue struct {
	name string
	v    any
}

func (e *evaluator) eval(n Node) (any, error) {
	switch n := n.(type) {
	case *BoolLit:
		return n.Value, nil
	case *StringLit:
		return n.Value, nil
	case *IntLit:
		return n.Value, nil
	case *ListLit:
		out := make([]any, len(n.Elems))
		for i, el := range n.Elems {
			v, err := e.eval(el)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *Ident:
		return e.name(n.Name, n)
	case *Select:
		return e.selectField(n)
	case *Index:
		return e.index(n)
	case *Slice:
		return e.slice(n)
	case *Unary:
		b, err := e.evalBool(n.X, "'!' needs a bool, not a %s")
		if err != nil {
			return nil, err
		}
		return !b, nil
	case *Binary:
		return e.binary(n)
	case *Call:
		if n.Recv == nil {
			return e.function(n)
		}
		return e.method(n)
	}
	return nil, evalErr(n, "cannot evaluate a %T", n)
}

func (e *evaluator) name(name string, n Node) (any, error) {
	for i := len(e.scope) - 1; i >= 0; i-- {
		if e.scope[i].name == name {
			return e.scope[i].v, nil
		}
	}
	if _, ok := cat.keywords[e.prog.field][name]; !ok {
		return nil, evalErr(n, "%s is not a keyword of the %s field", name, e.prog.field)
	}
	v, ok := e.env[name]
	if !ok {
		return nil, evalErr(n, "MissingKeyword: this request has no %s", name)
	}
	return v, nil
}

func (e *evaluator) bound(name string) bool {
	for _, b := range e.scope {
		if b.name == name {
			return true
		}
	}
	return false
}

func (e *evaluator) selectField(n *Select) (any, error) {
	if id, ok := n.X.(*Ident); ok && !e.bound(id.Name) && cat.namespaces[id.Name] {
		return e.name(id.Name+"."+n.Field, n)
	}
	x, err := e.eval(n.X)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case map[string]any:
		v, ok := x[n.Field]
		if !ok {
			return nil, evalErr(n, "MissingField: %s has no field %s here", n.X, n.Field)
		}
		return v, nil
	case []any:
		if n.Field == "count" { // the bare form two documentation pages show
			return big.NewInt(int64(len(x))), nil
		}
	}
	return nil, evalErr(n, "a %s has no field %s", kindOf(x), n.Field)
}

func (e *evaluator) index(n *Index) (any, error) {
	x, err := e.eval(n.X)
	if err != nil {
		return nil, err
	}
	i, err := e.eval(n.Index)
	if err != nil {
		return nil, err
	}
	if m, ok := x.(map[string]any); ok {
		key, ok := i.(string)
		if !ok {
			return nil, evalErr(n.Index, "a map is indexed by a string key, not a %s", kindOf(i))
		}
		v, ok := m[key]
		if !ok {
			return nil, evalErr(n, "MissingField: %s has no key '%s'", n.X, key)
		}
		return v, nil
	}
	pos, ok := toInt(i)
	if !ok {
		return nil, evalErr(n.Index, "an index is an int, not a %s", kindOf(i))
	}
	switch x := x.(type) {
	case []any:
		if !pos.IsInt64() || pos.Int64() < 0 || pos.Int64() >= int64(len(x)) {
			return nil, evalErr(n, "index %s is out of range: the list has %d elements", pos, len(x))
		}
		return x[pos.Int64()], nil
	case string:
		r := []rune(x)
		if !pos.IsInt64() || pos.Int64() < 0 || pos.Int64() >= int64(len(r)) {
			return nil, evalErr(n, "index %s is out of range: the string has %d characters", pos, len(r))
		}
		return string(r[pos.Int64()]), nil
	}
	return nil, evalErr(n, "a %s cannot be indexed", kindOf(x))
}

// slice takes [lo, hi): characters of a string (hex strings keep their 0x,
// so eth.tx.data[0..10] is the 0x and the selector) or elements of a list.
func (e *evaluator) slice(n *Slice) (any, error) {
	x, err := e.eval(n.X)
	if err != nil {
		return nil, err
	}
	var bounds [2]int64
	for i, b := range []Node{n.Lo, n.Hi} {
		v, err := e.eval(b)
		if err != nil {
			return nil, err
		}
		k, ok := toInt(v)
		if !ok || !k.IsInt64() {
			return nil, evalErr(b, "a slice bound is an int, not a %s", kindOf(v))
		}
		bounds[i] = k.Int64()
	}
	lo, hi := bounds[0], bounds[1]
	inside := func(length int) bool { return lo >= 0 && lo <= hi && hi <= int64(length) }
	switch x := x.(type) {
	case string:
		if r := []rune(x); inside(len(r)) {
			return string(r[lo:hi]), nil
		}
		return nil, evalErr(n, "slice [%d..%d] is out of range: the string has %d characters", lo, hi, len([]rune(x)))
	case []any:
		if inside(len(x)) {
			return x[lo:hi], nil
		}
		return nil, evalErr(n, "slice [%d..%d] is out of range: the list has %d elements", lo, hi, len(x))
	}
	return nil, evalErr(n, "a %s cannot be sliced", kindOf(x))
}

func (e *evaluator) function(n *Call) (any, error) {
	switch n.Name {
	case "Timestamp":
		lit, ok := n.Args[0].(*StringLit)
		if !ok {
			return nil, evalErr(n, "Timestamp takes a string literal")
		}
		t, err := parseTimestamp(lit.Value)
		if err != nil {
			return nil, evalErr(n, "%v", err)
		}
		return t, nil
	case "CronSpan":
		now, err := e.name("time.now", n)
		if err != nil {
			return nil, err
		}
		t, ok := now.(time.Time)
		if !ok {
			return nil, evalErr(n, "time.now is a %s, not a timestamp", kindOf(now))
		}
		return e.prog.spans[n].holds(t), nil
	}
	return nil, evalErr(n, "%s() is not a function of the policy language", n.Name)
}

// kindOf names the type of a runtime value for messages.
func kindOf(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "struct"
	case time.Time:
		return "timestamp"
	case nil:
		return "null"
	}
	if _, ok := toInt(v); ok {
		return "int"
	}
	return fmt.Sprintf("%T", v)
}
