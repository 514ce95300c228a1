package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// rawDynamicType is a dynamic parameter's type that keeps the argument as
// Terraform's value (tftypes), as the plugin protocol delivers it. The
// framework's DynamicType turns every nested value into a framework value
// first; for 1,000 policies that costs more than deciding them, and the
// function reads the value once, by argValue.
type rawDynamicType struct {
	basetypes.DynamicType
}

var (
	_ basetypes.DynamicTypable  = rawDynamicType{}
	_ basetypes.DynamicValuable = rawDynamicValue{}
)

func (rawDynamicType) Equal(o attr.Type) bool {
	_, ok := o.(rawDynamicType)
	return ok
}

func (rawDynamicType) String() string { return "rawDynamicType" }

func (rawDynamicType) ValueType(context.Context) attr.Value { return rawDynamicValue{} }

func (rawDynamicType) ValueFromTerraform(_ context.Context, v tftypes.Value) (attr.Value, error) {
	return rawDynamicValue{raw: v}, nil
}

func (rawDynamicType) ValueFromDynamic(ctx context.Context, v basetypes.DynamicValue) (basetypes.DynamicValuable, diag.Diagnostics) {
	raw, err := v.ToTerraformValue(ctx)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Invalid dynamic value", err.Error())}
	}
	return rawDynamicValue{raw: raw}, nil
}

// rawDynamicValue is an argument of rawDynamicType.
type rawDynamicValue struct {
	raw tftypes.Value
}

// terraformValue is the value; a zero rawDynamicValue is null.
func (v rawDynamicValue) terraformValue() tftypes.Value {
	if v.raw.Type() == nil {
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	}
	return v.raw
}

func (rawDynamicValue) Type(context.Context) attr.Type { return rawDynamicType{} }

func (v rawDynamicValue) ToTerraformValue(context.Context) (tftypes.Value, error) {
	return v.terraformValue(), nil
}

func (v rawDynamicValue) Equal(o attr.Value) bool {
	other, ok := o.(rawDynamicValue)
	return ok && v.terraformValue().Equal(other.terraformValue())
}

func (v rawDynamicValue) IsNull() bool { return v.terraformValue().IsNull() }

func (v rawDynamicValue) IsUnknown() bool { return !v.terraformValue().IsKnown() }

func (v rawDynamicValue) String() string { return v.terraformValue().String() }

// ToDynamicValue is the framework's dynamic value of the same value.
func (v rawDynamicValue) ToDynamicValue(ctx context.Context) (basetypes.DynamicValue, diag.Diagnostics) {
	converted, err := basetypes.DynamicType{}.ValueFromTerraform(ctx, v.terraformValue())
	if err != nil {
		return basetypes.DynamicValue{}, diag.Diagnostics{diag.NewErrorDiagnostic("Invalid dynamic value", fmt.Sprint(err))}
	}
	dv, ok := converted.(basetypes.DynamicValue)
	if !ok {
		return basetypes.DynamicValue{}, diag.Diagnostics{diag.NewErrorDiagnostic("Invalid dynamic value", fmt.Sprintf("got %T", converted))}
	}
	return dv, nil
}
