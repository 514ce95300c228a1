package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// oneOf refuses a string that is none of values, naming where it sits as
// a reader would (describePath), not as the framework dumps a set element,
// and suggesting the value meant by policylang.Closest's rule.
func oneOf(values ...string) validator.String { return oneOfValidator{values: values} }

type oneOfValidator struct{ values []string }

func (v oneOfValidator) Description(context.Context) string {
	return "one of " + quotedList(v.values)
}

func (v oneOfValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v oneOfValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || slices.Contains(v.values, req.ConfigValue.ValueString()) {
		return
	}
	got := req.ConfigValue.ValueString()
	hint := ""
	if closest := policylang.Closest(got, v.values); closest != "" {
		hint = fmt.Sprintf(" Did you mean %q?", closest)
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid value", fmt.Sprintf("%s must be one of %s, got %q.%s",
		describePath(req.Path), quotedList(v.values), got, hint))
}

func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, s := range values {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// setElementKeys names the attribute that identifies an element of each
// set of objects, for describePath.
var setElementKeys = map[string]string{"subscriptions": "event_type", "rules": "cidr"}

// describePath is a path as a reader names it: a set element by the
// attribute that identifies it, subscriptions[event_type = "EVERYTHING"],
// where the framework would print the whole element.
func describePath(p path.Path) string {
	var b strings.Builder
	parent := ""
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
			parent = string(s)
		case path.PathStepElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case path.PathStepElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		case path.PathStepElementKeyValue:
			b.WriteString(setElementName(s.Value, setElementKeys[parent]))
		}
	}
	return b.String()
}

// setElementName is "[key = value]" for an object element whose key
// attribute is a known string, else "[...]".
func setElementName(v any, key string) string {
	obj, ok := v.(basetypes.ObjectValue)
	if !ok || key == "" {
		return "[...]"
	}
	s, ok := obj.Attributes()[key].(basetypes.StringValue)
	if !ok || s.IsNull() || s.IsUnknown() {
		return "[...]"
	}
	return fmt.Sprintf("[%s = %q]", key, s.ValueString())
}
