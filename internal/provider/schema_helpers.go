package provider

import (
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Small schema helpers that the resources and data sources share, each
// written once here.

var noSpacesRE = regexp.MustCompile(`^\S+$`)

// notBlank refuses text that is empty or only white space, at plan time
// rather than after the service refuses it (or could never match it).
func notBlank() validator.String { return textValidator{nonBlank: true} }

// noSpaces refuses an id that is empty or holds white space: the service's
// ids and addresses never do. what names the value the attribute wants, for
// the message, e.g. "a policy id".
func noSpaces(what string) validator.String {
	return stringvalidator.RegexMatches(noSpacesRE, "must be "+what+": not empty and without spaces")
}

// requiredArgument is a string argument a data source needs.
func requiredArgument(desc string, validators ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{Required: true, MarkdownDescription: desc, Validators: validators}
}

// optionalArgument is a string argument a data source may be given.
func optionalArgument(desc string, validators ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: validators}
}

// computedString is a read-only string attribute of a data source.
func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}

// omittedNull ends the description of an attribute that the service may
// leave out of its answer.
const omittedNull = " Null when the service leaves it out."

// computedOmittable is a read-only string attribute that the service may
// leave out: null then, as its description says.
func computedOmittable(desc string) schema.StringAttribute { return computedString(desc + omittedNull) }

// computedBool is a read-only bool attribute of a data source.
func computedBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
}

// computedInt64 is a read-only number attribute of a data source.
func computedInt64(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
}

// computedList is a read-only list of objects with the given attributes.
func computedList(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true, MarkdownDescription: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

// computedObject is a read-only object with the given attributes.
func computedObject(desc string, attrs map[string]schema.Attribute) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true, MarkdownDescription: desc, Attributes: attrs}
}

// computedTimestamp is a read-only timestamp attribute of a data source,
// written by timestampValue.
func computedTimestamp(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: desc}
}

// renderTimestamp is the one way every timestamp attribute of every
// resource and data source is written: RFC 3339 in UTC, with nanoseconds
// when there are any ("2026-10-26T07:33:20Z", "2026-11-21T22:26:40.25Z").
// An absent timestamp is null. One the provider cannot read keeps the
// service's text rather than hide it, and err says why.
func renderTimestamp(ts client.Timestamp) (timetypes.RFC3339, error) {
	if ts.IsZero() {
		return timetypes.NewRFC3339Null(), nil
	}
	t, err := ts.Time()
	if err != nil {
		return timetypes.RFC3339{StringValue: types.StringValue(ts.Seconds + ts.Text)}, err
	}
	// Not timetypes.NewRFC3339TimeValue: it drops the nanoseconds.
	return timetypes.RFC3339{StringValue: types.StringValue(t.UTC().Format(time.RFC3339Nano))}, nil
}

// timestampValue is renderTimestamp for callers that keep an unreadable
// timestamp as the service's text without an error.
func timestampValue(ts client.Timestamp) timetypes.RFC3339 {
	v, _ := renderTimestamp(ts)
	return v
}

// optionalString maps the service's omitted (empty) string to null.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// optionalBool maps an omitted bool to null.
func optionalBool(b *bool) types.Bool {
	if b == nil {
		return types.BoolNull()
	}
	return types.BoolValue(*b)
}

// optionalInt maps an omitted number to null.
func optionalInt(n *int) types.Int64 {
	if n == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*n))
}
