package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

var _ validator.String = policyExpressionValidator{}

// policyExpression checks a policy expression of field f with policylang at
// plan time, so that a mistake stops `terraform plan` with its line and
// column instead of failing the activity halfway through an apply, or being
// stored as a policy that errors on every request. It never calls the
// service.
func policyExpression(f policylang.Field) validator.String {
	return policyExpressionValidator{field: f}
}

// policyExpressionValidator checks one field's expressions; see policyExpression.
type policyExpressionValidator struct{ field policylang.Field }

func (v policyExpressionValidator) Description(context.Context) string {
	return v.describe(string(v.field))
}

func (v policyExpressionValidator) MarkdownDescription(context.Context) string {
	return v.describe("`" + string(v.field) + "`")
}

func (v policyExpressionValidator) describe(field string) string {
	return "value must be a " + field + " expression of the service's policy language that evaluates to a bool; " +
		"an expression the service would refuse or could never evaluate is an error, a likely mistake " +
		"(an undocumented field or value) a warning"
}

// ValidateString skips null and unknown values: an expression built from a
// value known only at apply (another resource's id) is checked when
// Terraform validates again during the apply, before it is sent. The empty
// string is the length validator's to refuse.
func (v policyExpressionValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !policyChecksEnabled || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() == "" {
		return
	}
	src := req.ConfigValue.ValueString()
	_, ds := policylang.Compile(src, v.field)
	for _, d := range ds {
		if d.Severity == policylang.SeverityError {
			resp.Diagnostics.AddAttributeError(req.Path, fmt.Sprintf("Invalid policy %s expression", v.field), d.Format(src))
			continue
		}
		// Warnings do not stop the plan: the service may know fields and
		// values newer than its documentation.
		resp.Diagnostics.AddAttributeWarning(req.Path, fmt.Sprintf("Possible mistake in policy %s expression", v.field), d.Format(src))
	}
}
