package policylang

import (
	"fmt"
	"strings"
)

// Kind is the kind of a Type.
type Kind int

// The kinds of the language's types.
const (
	KindAny Kind = iota // unknown until evaluation: a ContractArgument, a JSON value
	KindBool
	KindInt  // signed 128-bit
	KindUint // unsigned 256-bit
	KindString
	KindTimestamp
	KindList
	KindMap // string keys, read with ['key']
	KindStruct
)

// Type is the static type of an expression.
type Type struct {
	Kind   Kind
	Elem   *Type  // the element of a list, the value of a map
	Struct string // the name of a struct
}

var (
	tAny       = &Type{Kind: KindAny}
	tBool      = &Type{Kind: KindBool}
	tInt       = &Type{Kind: KindInt}
	tUint      = &Type{Kind: KindUint}
	tString    = &Type{Kind: KindString}
	tTimestamp = &Type{Kind: KindTimestamp}
)

func listOf(t *Type) *Type { return &Type{Kind: KindList, Elem: t} }

func (t *Type) String() string {
	switch t.Kind {
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindUint:
		return "uint"
	case KindString:
		return "string"
	case KindTimestamp:
		return "timestamp"
	case KindList:
		return "list<" + t.Elem.String() + ">"
	case KindMap:
		return "map<string, " + t.Elem.String() + ">"
	case KindStruct:
		return t.Struct
	}
	return "any"
}

func (t *Type) numeric() bool { return t.Kind == KindInt || t.Kind == KindUint }

// comparable tells whether == and != accept a and b. Numbers of both kinds
// compare with each other (mixing int and uint is not documented; refusing
// it could refuse a valid policy); anything compares with any.
func comparable(a, b *Type) bool {
	switch {
	case a.Kind == KindAny || b.Kind == KindAny:
		return true
	case a.numeric() && b.numeric():
		return true
	case a.Kind != b.Kind:
		return false
	case a.Kind == KindList || a.Kind == KindMap:
		return comparable(a.Elem, b.Elem)
	case a.Kind == KindStruct:
		return a.Struct == b.Struct
	}
	return true
}

// parseType reads a type of the catalogue: bool, int, uint, string,
// timestamp, any, list<T>, map<T> or a struct name.
func parseType(s string) (*Type, error) {
	switch s {
	case "bool":
		return tBool, nil
	case "int":
		return tInt, nil
	case "uint":
		return tUint, nil
	case "string":
		return tString, nil
	case "timestamp":
		return tTimestamp, nil
	case "any":
		return tAny, nil
	}
	for prefix, kind := range map[string]Kind{"list<": KindList, "map<": KindMap} {
		if inner, ok := strings.CutPrefix(s, prefix); ok {
			inner, ok = strings.CutSuffix(inner, ">")
			if !ok {
				return nil, fmt.Errorf("type %q: missing '>'", s)
			}
			elem, err := parseType(inner)
			if err != nil {
				return nil, err
			}
			return &Type{Kind: kind, Elem: elem}, nil
		}
	}
	if s == "" || strings.ContainsAny(s, "<>, ") {
		return nil, fmt.Errorf("type %q is not a type", s)
	}
	return &Type{Kind: KindStruct, Struct: s}, nil
}
