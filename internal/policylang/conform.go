package policylang

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Conforming a request's data to the catalogue: whoever builds a request
// (the emulator from a transaction it parsed, policy_decision from its
// argument, a test from the decision table) hands plain Go values to
// ConformKeyword, which checks them against the keyword's catalogued type
// and gives them in the one shape Eval reads. Integers are *big.Int on the
// whole way: wei amounts exceed 2^53, so no float64 may carry them.

// ConformError says where a value does not fit its catalogued type. Path
// is relative to the value conformed: "" for the value itself, ".value",
// "[2].signer", "['wad']".
type ConformError struct {
	Path    string
	Message string
}

func (e *ConformError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return strings.TrimPrefix(e.Path, ".") + ": " + e.Message
}

// The ranges of the language's integers (reference §7.1).
var (
	maxInt  = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1)) // 2^127-1
	minInt  = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))                // -2^127
	maxUint = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)) // 2^256-1
)

// ConditionKeywords lists the keywords of the condition field that carry
// a request's data (every one but activity), sorted.
func ConditionKeywords() []string {
	return slices.DeleteFunc(keywordsOf(FieldCondition), func(k string) bool { return k == "activity" })
}

// KeywordType is the catalogued type of a condition keyword.
func KeywordType(keyword string) (*Type, bool) {
	t, ok := cat.keywords[FieldCondition][keyword]
	return t, ok
}

// StructFields lists the catalogued fields of a struct type, sorted.
func StructFields(name string) []string { return structFields(name) }

// FieldType is the catalogued type of a struct's field.
func FieldType(structName, field string) (*Type, bool) {
	t, ok := cat.structs[structName][field]
	return t, ok
}

// ConformKeyword checks v against the catalogued type of the condition
// keyword (eth.tx, wallet, secret, ...) and gives it as Eval reads it.
func ConformKeyword(keyword string, v any) (any, error) {
	t, ok := KeywordType(keyword)
	if !ok || keyword == "activity" {
		msg := fmt.Sprintf("%q is not a condition keyword that carries a request's data", keyword)
		if best := Closest(keyword, ConditionKeywords()); best != "" {
			msg += "; did you mean " + best + "?"
		}
		return nil, &ConformError{Message: msg}
	}
	return Conform(t, v)
}

// Conform checks v against t and gives it as Eval reads it:
//   - int and uint: *big.Int from a *big.Int, a Go integer, a json.Number
//     or a decimal string ("2000000000000000000"), within the type's range
//     (int: signed 128-bit; uint: unsigned 256-bit);
//   - string and bool as themselves; timestamp from a time.Time or an
//     RFC 3339 string;
//   - list<T> from a []any; map<T> from a map[string]any; a struct from a
//     map[string]any whose keys are catalogued fields (a field left out
//     stays absent: reading it is an evaluation error, as in the service);
//   - any (a ContractArgument, a JSON value): strings, bools, integers,
//     lists and maps of them, integers made *big.Int.
func Conform(t *Type, v any) (any, error) {
	c := conformer{}
	out := c.conform(t, v, "")
	if c.err != nil {
		return nil, c.err
	}
	return out, nil
}

type conformer struct{ err *ConformError }

func (c *conformer) fail(path, format string, args ...any) any {
	if c.err == nil {
		c.err = &ConformError{Path: path, Message: fmt.Sprintf(format, args...)}
	}
	return nil
}

func (c *conformer) conform(t *Type, v any, path string) any {
	if c.err != nil {
		return nil
	}
	if v == nil {
		return c.fail(path, "is null: leave it out instead")
	}
	switch t.Kind {
	case KindInt, KindUint:
		return c.integer(t, v, path)
	case KindString:
		if s, ok := v.(string); ok {
			return s
		}
	case KindBool:
		if b, ok := v.(bool); ok {
			return b
		}
	case KindTimestamp:
		return c.timestamp(v, path)
	case KindList:
		return c.list(t, v, path)
	case KindMap:
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = c.conform(t.Elem, x, path+"['"+k+"']")
		}
		return out
	case KindStruct:
		return c.structValue(t, v, path)
	case KindAny:
		return c.anyValue(v, path)
	}
	return c.fail(path, "must be %s, not %s", article(t), kindOfValue(v))
}

func (c *conformer) integer(t *Type, v any, path string) any {
	var n *big.Int
	switch x := v.(type) {
	case *big.Int:
		n = new(big.Int).Set(x)
	case int:
		n = big.NewInt(int64(x))
	case int64:
		n = big.NewInt(x)
	case uint64:
		n = new(big.Int).SetUint64(x)
	case json.Number:
		return c.integer(t, x.String(), path)
	case string:
		var ok bool
		if n, ok = new(big.Int).SetString(x, 10); !ok {
			return c.fail(path, "%q is not a whole number: write it in decimal digits, such as \"2000000000000000000\"", x)
		}
	default:
		return c.fail(path, "must be %s (a number or a decimal string), not %s", article(t), kindOfValue(v))
	}
	if t.Kind == KindInt && (n.Cmp(minInt) < 0 || n.Cmp(maxInt) > 0) {
		return c.fail(path, "%s does not fit an int, which is signed 128-bit (from -2^127 to 2^127-1)", n)
	}
	if t.Kind == KindUint && (n.Sign() < 0 || n.Cmp(maxUint) > 0) {
		return c.fail(path, "%s does not fit a uint, which is unsigned 256-bit (from 0 to 2^256-1)", n)
	}
	return n
}

func (c *conformer) timestamp(v any, path string) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC()
	case string:
		at, err := time.Parse(time.RFC3339, x)
		if err != nil {
			return c.fail(path, "%q is not an RFC 3339 time such as \"2026-01-02T15:04:05Z\"", x)
		}
		return at.UTC()
	}
	return c.fail(path, "must be a timestamp (an RFC 3339 string), not %s", kindOfValue(v))
}

func (c *conformer) list(t *Type, v any, path string) any {
	var elems []any
	switch x := v.(type) {
	case []any:
		elems = x
	case []string:
		for _, s := range x {
			elems = append(elems, s)
		}
	default:
		return c.fail(path, "must be %s, not %s", article(t), kindOfValue(v))
	}
	out := make([]any, len(elems))
	for i, x := range elems {
		out[i] = c.conform(t.Elem, x, path+"["+strconv.Itoa(i)+"]")
	}
	return out
}

func (c *conformer) structValue(t *Type, v any, path string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return c.fail(path, "must be an object (%s), not %s", t.Struct, kindOfValue(v))
	}
	out := make(map[string]any, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ft, ok := cat.structs[t.Struct][k]
		if !ok {
			names := structFields(t.Struct)
			msg := fmt.Sprintf("%s has no field %q", t.Struct, k)
			if best := Closest(k, names); best != "" {
				msg += "; did you mean " + best + "?"
			}
			return c.fail(path+"."+k, "%s (its fields: %s)", msg, strings.Join(names, ", "))
		}
		out[k] = c.conform(ft, m[k], path+"."+k)
	}
	return out
}

// anyValue conforms a ContractArgument or JSON value: its shape depends on
// an uploaded ABI or on the message, so only the kinds are checked.
func (c *conformer) anyValue(v any, path string) any {
	switch x := v.(type) {
	case string, bool:
		return x
	case *big.Int, int, int64, uint64, json.Number:
		return c.integer(tAnyInt, x, path)
	case float64:
		if n, acc := big.NewFloat(x).Int(nil); acc == big.Exact {
			return c.integer(tAnyInt, n, path)
		}
		return c.fail(path, "%v is not a whole number: the policy language has only integers", x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = c.anyValue(e, path+"["+strconv.Itoa(i)+"]")
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = c.anyValue(e, path+"['"+k+"']")
		}
		return out
	case nil:
		return c.fail(path, "is null: leave it out instead")
	}
	return c.fail(path, "must be a string, bool, whole number, list or object, not %s", kindOfValue(v))
}

// tAnyInt is the integer of a ContractArgument: the documentation says
// arguments beyond the int range cannot be compared (reference §9), so an
// argument is held to it as soon as it enters a request.
var tAnyInt = tInt

// article names a type for a message: "an int", "a list<string>".
func article(t *Type) string {
	s := t.String()
	switch t.Kind {
	case KindInt, KindUint, KindAny:
		return "an " + s
	case KindStruct:
		return "an object (" + s + ")"
	}
	return "a " + s
}

// kindOfValue names the kind of a Go value a caller passed, for a message.
func kindOfValue(v any) string {
	switch v.(type) {
	case *big.Int, int, int64, uint64, json.Number, float64:
		return "a number"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	case []any, []string:
		return "a list"
	case bool, string, time.Time:
		return "a " + kindOf(v)
	}
	return fmt.Sprintf("a %T", v)
}
