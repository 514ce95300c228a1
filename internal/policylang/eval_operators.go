package policylang

import (
	"math/big"
	"time"
)

var minInt128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))

// toInt reads an integer value; the emulator may give plain Go integers.
func toInt(v any) (*big.Int, bool) {
	switch v := v.(type) {
	case *big.Int:
		return v, v != nil
	case int:
		return big.NewInt(int64(v)), true
	case int64:
		return big.NewInt(v), true
	}
	return nil, false
}

// inRange tells whether an integer can take part in a comparison: the
// language's integers are signed 128-bit and unsigned 256-bit.
func inRange(i *big.Int) bool { return i.Cmp(minInt128) >= 0 && i.Cmp(maxUint256) <= 0 }

// number reads an operand of a numeric comparison: an integer, or a string
// of digits compared with one (the quoted numbers of two documentation
// pages, a warning at plan time).
func number(v any) (*big.Int, bool) {
	if i, ok := toInt(v); ok {
		return i, true
	}
	if s, ok := v.(string); ok && s != "" {
		i, ok := new(big.Int).SetString(s, 10)
		return i, ok && s[0] >= '0' && s[0] <= '9'
	}
	return nil, false
}

func (e *evaluator) binary(n *Binary) (any, error) {
	// No short-circuit: both sides are evaluated before anything else, and
	// an error on either side is the result.
	x, errX := e.eval(n.X)
	y, errY := e.eval(n.Y)
	if errX != nil {
		return nil, errX
	}
	if errY != nil {
		return nil, errY
	}
	switch n.Op {
	case "&&", "||":
		a, okA := x.(bool)
		b, okB := y.(bool)
		if !okA || !okB {
			return nil, evalErr(n, "'%s' joins two bools, not a %s and a %s", n.Op, kindOf(x), kindOf(y))
		}
		if n.Op == "&&" {
			return a && b, nil
		}
		return a || b, nil
	case "==", "!=":
		eq, err := equal(x, y, n)
		if err != nil {
			return nil, err
		}
		return eq == (n.Op == "=="), nil
	case "in":
		list, ok := y.([]any)
		if !ok {
			return nil, evalErr(n.Y, "'in' needs a list on its right, not a %s", kindOf(y))
		}
		return contains(list, x, n)
	}
	c, err := order(x, y, n)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil // ">="
}

// contains compares every element (no short-circuit: a comparison that
// cannot be made is an error wherever it stands).
func contains(list []any, v any, n Node) (bool, error) {
	found := false
	for _, el := range list {
		eq, err := equal(el, v, n)
		if err != nil {
			return false, err
		}
		found = found || eq
	}
	return found, nil
}

// equal compares two values of one type; values of different types cannot
// be compared, which is an evaluation error.
func equal(x, y any, n Node) (bool, error) {
	if a, ok := toInt(x); ok {
		if b, ok := number(y); ok {
			return cmpInts(a, b, n)
		}
	}
	if b, ok := toInt(y); ok {
		if a, ok := number(x); ok {
			return cmpInts(a, b, n)
		}
	}
	switch a := x.(type) {
	case bool:
		if b, ok := y.(bool); ok {
			return a == b, nil
		}
	case string:
		if b, ok := y.(string); ok {
			return a == b, nil
		}
	case time.Time:
		if b, ok := y.(time.Time); ok {
			return a.Equal(b), nil
		}
	case []any:
		if b, ok := y.([]any); ok {
			if len(a) != len(b) {
				return false, nil
			}
			for i := range a {
				if eq, err := equal(a[i], b[i], n); err != nil || !eq {
					return false, err
				}
			}
			return true, nil
		}
	case map[string]any:
		if b, ok := y.(map[string]any); ok {
			if len(a) != len(b) {
				return false, nil
			}
			for k, av := range a {
				bv, ok := b[k]
				if !ok {
					return false, nil
				}
				if eq, err := equal(av, bv, n); err != nil || !eq {
					return false, err
				}
			}
			return true, nil
		}
	}
	return false, evalErr(n, "cannot compare a %s with a %s", kindOf(x), kindOf(y))
}

func cmpInts(a, b *big.Int, n Node) (bool, error) {
	c, err := cmpRange(a, b, n)
	return c == 0, err
}

func cmpRange(a, b *big.Int, n Node) (int, error) {
	for _, v := range []*big.Int{a, b} {
		if !inRange(v) {
			return 0, evalErr(n, "%s is outside the range of the language's integers and cannot be compared", v)
		}
	}
	return a.Cmp(b), nil
}

// order compares two numbers or two timestamps. A string of digits counts
// as a number beside an int, but two strings are never ordered.
func order(x, y any, n *Binary) (int, error) {
	if !isString(x) || !isString(y) {
		a, okA := number(x)
		b, okB := number(y)
		if okA && okB {
			return cmpRange(a, b, n)
		}
	}
	if a, ok := x.(time.Time); ok {
		if b, ok := y.(time.Time); ok {
			return a.Compare(b), nil
		}
	}
	return 0, evalErr(n, "'%s' orders two numbers or two timestamps, not a %s and a %s", n.Op, kindOf(x), kindOf(y))
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

func (e *evaluator) method(n *Call) (any, error) {
	recv, err := e.eval(n.Recv)
	if err != nil {
		return nil, err
	}
	list, ok := recv.([]any)
	if !ok {
		return nil, evalErr(n, "%s() is a method of lists, not of a %s", n.Name, kindOf(recv))
	}
	switch n.Name {
	case "count":
		return big.NewInt(int64(len(list))), nil
	case "contains":
		v, err := e.eval(n.Args[0])
		if err != nil {
			return nil, err
		}
		return contains(list, v, n)
	}
	v, _ := n.Args[0].(*Ident) // the checker made sure it is one
	results := make([]bool, len(list))
	for i, el := range list {
		e.scope = append(e.scope, boundValue{v.Name, el})
		b, err := e.evalBool(n.Args[1], "the predicate of %s() gave a %s, not a bool", n.Name)
		e.scope = e.scope[:len(e.scope)-1]
		if err != nil {
			return nil, err
		}
		results[i] = b
	}
	switch n.Name {
	case "any":
		for _, b := range results {
			if b {
				return true, nil
			}
		}
		return false, nil
	case "all":
		for _, b := range results {
			if !b {
				return false, nil
			}
		}
		return true, nil
	}
	kept := []any{}
	for i, b := range results {
		if b {
			kept = append(kept, list[i])
		}
	}
	return kept, nil
}
