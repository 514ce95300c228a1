package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func TestNotBlank(t *testing.T) {
	const msg = "must not be empty or only white space"
	runStringValidatorCases(t, notBlank(), map[string]validatorCase{
		"word":         {value: types.StringValue("x")},
		"inner space":  {value: types.StringValue("my name")},
		"padded":       {value: types.StringValue("  x  ")},
		"empty":        {value: types.StringValue(""), wantErr: msg},
		"spaces":       {value: types.StringValue("   "), wantErr: msg},
		"tab, newline": {value: types.StringValue("\t\n"), wantErr: msg},
	})
}

func TestNoSpaces(t *testing.T) {
	const msg = "must be a policy id: not empty and without spaces"
	runStringValidatorCases(t, noSpaces("a policy id"), map[string]validatorCase{
		"id":          {value: types.StringValue("5f0c-11aa")},
		"empty":       {value: types.StringValue(""), wantErr: msg},
		"inner space": {value: types.StringValue("a b"), wantErr: msg},
		"leading tab": {value: types.StringValue("\tab"), wantErr: msg},
		"trailing nl": {value: types.StringValue("ab\n"), wantErr: msg},
	})
}

func TestRenderTimestamp(t *testing.T) {
	for name, tc := range map[string]struct {
		in      client.Timestamp
		want    string // "" = null
		wantErr bool
	}{
		"absent":            {in: client.Timestamp{}},
		"whole seconds":     {in: client.Timestamp{Seconds: "1793000000"}, want: "2026-10-26T07:33:20Z"},
		"nanos kept":        {in: client.Timestamp{Seconds: "1795300000", Nanos: "250000000"}, want: "2026-11-21T22:26:40.25Z"},
		"one nanosecond":    {in: client.Timestamp{Seconds: "1793000000", Nanos: "1"}, want: "2026-10-26T07:33:20.000000001Z"},
		"text in UTC":       {in: client.Timestamp{Text: "2026-10-26T09:33:20.5+02:00"}, want: "2026-10-26T07:33:20.5Z"},
		"text seconds":      {in: client.Timestamp{Text: "1793000000"}, want: "2026-10-26T07:33:20Z"},
		"unreadable text":   {in: client.Timestamp{Text: "yesterday"}, want: "yesterday", wantErr: true},
		"unreadable number": {in: client.Timestamp{Seconds: "x"}, want: "x", wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := renderTimestamp(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			if tc.want == "" {
				if !got.IsNull() {
					t.Fatalf("got %v, want null", got)
				}
				return
			}
			if got.IsNull() || got.IsUnknown() || got.ValueString() != tc.want {
				t.Fatalf("got %v, want %q", got, tc.want)
			}
			if !got.Equal(timestampValue(tc.in)) {
				t.Errorf("timestampValue = %v, want what renderTimestamp renders", timestampValue(tc.in))
			}
			if !tc.wantErr {
				if _, diags := got.ValueRFC3339Time(); diags.HasError() {
					t.Errorf("%q is not RFC 3339 for timetypes: %v", tc.want, diags)
				}
			}
		})
	}
}

func TestOptionalValues(t *testing.T) {
	yes, zero := true, 0
	if !optionalString("").IsNull() || optionalString("x").ValueString() != "x" {
		t.Error("optionalString: want null for \"\" and the value otherwise")
	}
	if !optionalBool(nil).IsNull() || !optionalBool(&yes).ValueBool() {
		t.Error("optionalBool: want null for nil and the value otherwise")
	}
	if !optionalInt(nil).IsNull() || optionalInt(&zero).IsNull() || optionalInt(&zero).ValueInt64() != 0 {
		t.Error("optionalInt: want null for nil and 0 kept as a value")
	}
}

// A name is one check with one message: empty is one error, whole; a
// length limit says it counts bytes, as the service does, and how many
// characters that is (70 emoji are 280 bytes).
func TestNameText(t *testing.T) {
	runStringValidatorCases(t, nameText(), map[string]validatorCase{
		"word":        {value: types.StringValue("treasury")},
		"256 bytes":   {value: types.StringValue(strings.Repeat("é", 128))},
		"empty":       {value: types.StringValue(""), wantErr: "must not be empty or only white space."},
		"blank":       {value: types.StringValue(" \t"), wantErr: "must not be empty or only white space."},
		"70 emoji":    {value: types.StringValue(strings.Repeat("🔐", 70)), wantErr: "must be at most 256 bytes of UTF-8, as the service counts; this one is 280 bytes (70 characters)."},
		"257 letters": {value: types.StringValue(strings.Repeat("x", 257)), wantErr: "this one is 257 bytes (257 characters)"},
	})
	resp := &validator.StringResponse{}
	nameText().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("name"), ConfigValue: types.StringValue("")}, resp)
	if resp.Diagnostics.ErrorsCount() != 1 {
		t.Errorf("an empty name should be one error, got %v", resp.Diagnostics)
	}
}
