package provider

import (
	"fmt"
	"maps"
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
//
// It reads Terraform's values as the plugin protocol gives them
// (rawDynamicType keeps them so): the framework's own values of an
// argument of 1,000 policies would cost more to build than the decision.
type argValue struct {
	v   tftypes.Value
	at  *argPath
	arg *argument
}

// argPath is where a part sits, turned into text only for a message.
type argPath struct {
	parent *argPath
	name   string // the argument's or an attribute's name
	index  int    // an element's position, when name is ""
}

func (p *argPath) String() string {
	if p.parent == nil {
		return p.name
	}
	if p.name == "" {
		return fmt.Sprintf("%s[%d]", p.parent, p.index)
	}
	return p.parent.String() + "." + p.name
}

// argument is one argument of a function call being read.
type argument struct {
	position int64
	unknown  bool // some part the function reads is not known yet
}

// root is the whole argument, named name.
func (a *argument) root(v tftypes.Value, name string) argValue {
	return argValue{v: v, at: &argPath{name: name}, arg: a}
}

// child is a part of v: the attribute name, or else the element index.
func (v argValue) child(e tftypes.Value, name string, index int) argValue {
	return argValue{v: e, at: &argPath{parent: v.at, name: name, index: index}, arg: v.arg}
}

// path is where the value sits, such as "policies[2].effect".
func (v argValue) path() string { return v.at.String() }

// isNull reports whether the value is known to be null.
func (v argValue) isNull() bool { return v.known() && v.v.IsNull() }

// errorf is an error about this part of the argument.
func (v argValue) errorf(format string, args ...any) *function.FuncError {
	return function.NewArgumentFuncError(v.arg.position, v.path()+": "+fmt.Sprintf(format, args...))
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
		out[i] = v.child(e, "", i)
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
		if e.isNull() {
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
	raw, ferr := v.rawAttrs()
	if ferr != nil || raw == nil {
		return nil, ferr
	}
	out := make(map[string]argValue, len(raw))
	// In name order, so that the first error is the same every run.
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		a := raw[name]
		if allowed != nil && !slices.Contains(allowed, name) {
			return nil, v.errorf("has no attribute %q; it takes %s", name, strings.Join(allowed, ", "))
		}
		out[name] = v.child(a, name, 0)
	}
	return out, nil
}

// rawAttrs reads an object or a map as Terraform's values, for a reader
// that takes a few attributes and ignores the rest (rawMember); absent
// gives none.
func (v argValue) rawAttrs() (map[string]tftypes.Value, *function.FuncError) {
	if v.absent() {
		return nil, nil
	}
	t := v.v.Type()
	if !t.Is(tftypes.Object{}) && !t.Is(tftypes.Map{}) {
		return nil, v.errorf("must be an object, not %s", v.kind())
	}
	var raw map[string]tftypes.Value
	_ = v.v.As(&raw) // a known object or map
	return raw, nil
}

// rawMember is the attribute name of v, whose attributes rawAttrs read;
// null when absent.
func (v argValue) rawMember(raw map[string]tftypes.Value, name string) argValue {
	if a, ok := raw[name]; ok {
		return v.child(a, name, 0)
	}
	return v.child(tftypes.NewValue(tftypes.DynamicPseudoType, nil), name, 0)
}

// member is the attribute name of v, whose attributes attrs read; null
// when absent.
func (v argValue) member(attrs map[string]argValue, name string) argValue {
	if a, ok := attrs[name]; ok {
		return a
	}
	return v.child(tftypes.NewValue(tftypes.DynamicPseudoType, nil), name, 0)
}

// stringField is an optional string attribute and where it goes.
type stringField struct {
	name string
	into *string
}

// optionalStrings reads optional string attributes of v, whose attributes
// attrs read, in the order given (so that the first error is always the
// same).
func (v argValue) optionalStrings(attrs map[string]argValue, fields ...stringField) *function.FuncError {
	for _, f := range fields {
		var ferr *function.FuncError
		if *f.into, ferr = v.member(attrs, f.name).str(); ferr != nil {
			return ferr
		}
	}
	return nil
}

// required reads a string that must be set.
func (v argValue) required() (string, *function.FuncError) {
	if v.isNull() {
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
	return v.languageObject(false)
}

// languageObject reads an object's attributes as the policy language
// holds them; with skipNull, a null attribute is left out instead of
// refused.
func (v argValue) languageObject(skipNull bool) (map[string]any, *function.FuncError) {
	attrs, ferr := v.attrs()
	if ferr != nil {
		return nil, ferr
	}
	out := make(map[string]any, len(attrs))
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		if skipNull && a.isNull() {
			continue
		}
		x, ferr := a.languageValue()
		if ferr != nil {
			return nil, ferr
		}
		out[name] = x
	}
	return out, nil
}
