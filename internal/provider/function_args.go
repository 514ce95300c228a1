package provider

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// argValue is a part of a function argument whose type is dynamic: a value
// as Terraform passed it, and where it sits, for messages. Reading a part
// that is unknown marks the whole argument unknown, so that a function
// answers an unknown result rather than a guess.
type argValue struct {
	v    tftypes.Value
	path string // e.g. "policies[2].effect"
	arg  *argument
}

// argument is one argument of a function call being read.
type argument struct {
	position int64
	unknown  bool // some part the function reads is not known yet
}

// root is the whole argument, named name.
func (a *argument) root(v tftypes.Value, name string) argValue {
	return argValue{v: v, path: name, arg: a}
}

// errorf is an error about this part of the argument.
func (v argValue) errorf(format string, args ...any) *function.FuncError {
	return function.NewArgumentFuncError(v.arg.position, v.path+": "+fmt.Sprintf(format, args...))
}

// known reports whether the value is known, and marks the argument
// unknown when it is not.
func (v argValue) known() bool {
	if !v.v.IsKnown() {
		v.arg.unknown = true
		return false
	}
	return true
}

// absent reports whether the value is null (or unknown, which the caller
// then treats as absent for now: the result will be unknown anyway).
func (v argValue) absent() bool { return !v.known() || v.v.IsNull() }

// kind names the Terraform type of the value, for messages.
func (v argValue) kind() string {
	switch t := v.v.Type(); {
	case t.Is(tftypes.String):
		return "a string"
	case t.Is(tftypes.Number):
		return "a number"
	case t.Is(tftypes.Bool):
		return "a bool"
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}), t.Is(tftypes.Set{}):
		return "a list"
	case t.Is(tftypes.Object{}), t.Is(tftypes.Map{}):
		return "an object"
	}
	return v.v.Type().String()
}

// str reads an optional string: null, unknown and "" all give "".
func (v argValue) str() (string, *function.FuncError) {
	if v.absent() {
		return "", nil
	}
	if !v.v.Type().Is(tftypes.String) {
		return "", v.errorf("must be a string, not %s", v.kind())
	}
	var s string
	_ = v.v.As(&s) // a known string
	return s, nil
}

// elems reads a list, tuple or set; absent gives none.
func (v argValue) elems() ([]argValue, *function.FuncError) {
	if v.absent() {
		return nil, nil
	}
	t := v.v.Type()
	if !t.Is(tftypes.List{}) && !t.Is(tftypes.Tuple{}) && !t.Is(tftypes.Set{}) {
		return nil, v.errorf("must be a list, not %s", v.kind())
	}
	var raw []tftypes.Value
	_ = v.v.As(&raw) // a known collection
	out := make([]argValue, len(raw))
	for i, e := range raw {
		out[i] = argValue{v: e, path: fmt.Sprintf("%s[%d]", v.path, i), arg: v.arg}
	}
	return out, nil
}

// strings reads an optional list of strings.
func (v argValue) strings() ([]string, *function.FuncError) {
	elems, ferr := v.elems()
	if ferr != nil {
		return nil, ferr
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		if e.known() && e.v.IsNull() {
			return nil, e.errorf("must be a string, not null")
		}
		s, ferr := e.str()
		if ferr != nil {
			return nil, ferr
		}
		out = append(out, s)
	}
	return out, nil
}

// attrs reads an object or a map; absent gives none. With allowed names,
// any other attribute is an error that lists them: a misspelt attribute
// must not be ignored where every attribute means something.
func (v argValue) attrs(allowed ...string) (map[string]argValue, *function.FuncError) {
	if v.absent() {
		return nil, nil
	}
	t := v.v.Type()
	if !t.Is(tftypes.Object{}) && !t.Is(tftypes.Map{}) {
		return nil, v.errorf("must be an object, not %s", v.kind())
	}
	var raw map[string]tftypes.Value
	_ = v.v.As(&raw) // a known object or map
	out := make(map[string]argValue, len(raw))
	for name, a := range raw {
		if allowed != nil && !slices.Contains(allowed, name) {
			return nil, v.errorf("has no attribute %q; it takes %s", name, strings.Join(allowed, ", "))
		}
		out[name] = argValue{v: a, path: v.path + "." + name, arg: v.arg}
	}
	return out, nil
}

// member is the attribute name of v, whose attributes attrs read; null
// when absent.
func (v argValue) member(attrs map[string]argValue, name string) argValue {
	if a, ok := attrs[name]; ok {
		return a
	}
	return argValue{v: tftypes.NewValue(tftypes.DynamicPseudoType, nil), path: v.path + "." + name, arg: v.arg}
}

// required reads a string that must be set.
func (v argValue) required() (string, *function.FuncError) {
	if v.known() && v.v.IsNull() {
		return "", v.errorf("is required")
	}
	s, ferr := v.str()
	if ferr == nil && s == "" && v.known() {
		return "", v.errorf("must not be empty")
	}
	return s, ferr
}

// languageValue reads any value as the policy language holds it: strings,
// bools, whole numbers (the language has no fractions), lists and objects.
func (v argValue) languageValue() (any, *function.FuncError) {
	if !v.known() {
		return nil, nil
	}
	t := v.v.Type()
	switch {
	case v.v.IsNull():
		return nil, v.errorf("is null: leave it out instead")
	case t.Is(tftypes.String):
		return v.str()
	case t.Is(tftypes.Bool):
		var b bool
		_ = v.v.As(&b)
		return b, nil
	case t.Is(tftypes.Number):
		var f big.Float
		_ = v.v.As(&f)
		i, acc := f.Int(nil)
		if acc != big.Exact {
			return nil, v.errorf("%s is not a whole number: the policy language has only integers", f.Text('g', -1))
		}
		return i, nil
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}), t.Is(tftypes.Set{}):
		elems, _ := v.elems()
		out := make([]any, len(elems))
		for i, e := range elems {
			x, ferr := e.languageValue()
			if ferr != nil {
				return nil, ferr
			}
			out[i] = x
		}
		return out, nil
	}
	attrs, ferr := v.attrs()
	if ferr != nil {
		return nil, ferr
	}
	out := make(map[string]any, len(attrs))
	for name, a := range attrs {
		x, ferr := a.languageValue()
		if ferr != nil {
			return nil, ferr
		}
		out[name] = x
	}
	return out, nil
}
