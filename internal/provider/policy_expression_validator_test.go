package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// policyExpressionCase is one expression and the single finding it must
// give; col 0 means no finding at all.
type policyExpressionCase struct {
	field    policylang.Field
	value    types.String
	severity diag.Severity
	col      int    // column of the finding on line 1, where the caret goes
	message  string // a fragment of what is wrong or expected
}

func TestPolicyExpressionValidator(t *testing.T) {
	cond, cons, tm := policylang.FieldCondition, policylang.FieldConsensus, policylang.FieldTime
	e, w := diag.SeverityError, diag.SeverityWarning
	cases := map[string]policyExpressionCase{
		"valid condition": {field: cond, value: types.StringValue("activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'")},
		"valid consensus": {field: cons, value: types.StringValue("approvers.filter(u, u.tags.contains('ops')).count() >= 2")},
		"valid time": {field: tm, value: types.StringValue(
			"CronSpan('0 9 * * 1-5', '8h', 'America/New_York') && time.now < Timestamp('2027-01-01T00:00:00Z')")},
		"valid slice": {field: cond, value: types.StringValue("eth.tx.data[0..10] == '0xa9059cbb'")},
		"null":        {field: cond, value: types.StringNull()},
		"unknown":     {field: cons, value: types.StringUnknown()},

		"double-quoted string": {field: cond, value: types.StringValue(`activity.resource == "PRIVATE_KEY"`),
			severity: e, col: 22, message: "double-quoted strings are not supported"},
		"double quotes in time": {field: tm, value: types.StringValue(`time.now >= Timestamp("2026-03-01T00:00:00Z")`),
			severity: e, col: 23, message: "use single quotes"},
		"typo in keyword": {field: cond, value: types.StringValue("activty.type == 'x'"),
			severity: e, col: 1, message: "did you mean activity?"},
		"size rather than count": {field: cons, value: types.StringValue("approvers.size() >= 2"),
			severity: e, col: 11, message: "lists have count()"},
		"condition keyword in consensus": {field: cons, value: types.StringValue("activity.resource == 'POLICY'"),
			severity: e, col: 1, message: "activity is a keyword of the condition field"},
		"consensus keyword in condition": {field: cond, value: types.StringValue("approvers.count() >= 2"),
			severity: e, col: 1, message: "approvers is a keyword of the consensus field"},
		"int ordered against string": {field: cons, value: types.StringValue("approvers.count() >= 'two'"),
			severity: e, col: 19, message: "strings compare only with '==' and '!='"},
		"not a bool": {field: cond, value: types.StringValue("'PRIVATE_KEY'"),
			severity: e, col: 1, message: "must be a bool"},
		"timestamp is not a bool": {field: tm, value: types.StringValue("time.now"),
			severity: e, col: 1, message: "this one is a timestamp"},

		"misspelt field": {field: cond, value: types.StringValue("activity.resouce == 'POLICY'"),
			severity: w, col: 10, message: "did you mean resource?"},
		"undocumented value": {field: cond, value: types.StringValue("activity.action == 'SIGNING'"),
			severity: w, col: 20, message: "'SIGNING' is not a documented value of activity.action"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := policyExpression(tc.field)
			p := path.Root(string(tc.field))
			resp := &validator.StringResponse{}
			v.ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: tc.value}, resp)
			if tc.col == 0 {
				if len(resp.Diagnostics) != 0 {
					t.Fatalf("want no diagnostics, got %v", resp.Diagnostics)
				}
				requireRefuses(t, v, tc.field)
				return
			}
			if len(resp.Diagnostics) != 1 {
				t.Fatalf("want one diagnostic, got %d: %v", len(resp.Diagnostics), resp.Diagnostics)
			}
			checkPolicyDiagnostic(t, resp.Diagnostics[0], tc, p)
		})
	}
}

// checkPolicyDiagnostic checks d against tc: severity, summary, attribute
// path, and a detail that gives the position, the message, the quoted
// line and a caret under the offending column.
func checkPolicyDiagnostic(t *testing.T, d diag.Diagnostic, tc policyExpressionCase, p path.Path) {
	t.Helper()
	if d.Severity() != tc.severity {
		t.Errorf("severity %v, want %v", d.Severity(), tc.severity)
	}
	summary := "Invalid policy " + string(tc.field) + " expression"
	if tc.severity == diag.SeverityWarning {
		summary = "Possible mistake in policy " + string(tc.field) + " expression"
	}
	if d.Summary() != summary {
		t.Errorf("summary %q, want %q", d.Summary(), summary)
	}
	if wp, ok := d.(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(p) {
		t.Errorf("diagnostic is not on the attribute %s: %#v", p, d)
	}
	detail := d.Detail()
	for _, want := range []string{
		fmt.Sprintf("line 1, column %d: ", tc.col),
		tc.message,
		"\n    " + tc.value.ValueString() + "\n",
		"\n    " + strings.Repeat(" ", tc.col-1) + "^",
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail does not contain %q:\n%s", want, detail)
		}
	}
}

// requireRefuses proves that a case expecting silence ran a validator that
// does check: the same validator refuses an unbalanced parenthesis.
func requireRefuses(t *testing.T, v validator.String, f policylang.Field) {
	t.Helper()
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root(string(f)), ConfigValue: types.StringValue("(true")}, resp)
	if !resp.Diagnostics.HasError() {
		t.Fatal("the validator accepted '(true': it checks nothing, so its silence above proves nothing")
	}
}

// TestPolicyExpressionValidatorWired: each expression attribute of
// custody_policy checks its own field, next to the non-empty check.
func TestPolicyExpressionValidatorWired(t *testing.T) {
	resp := &resource.SchemaResponse{}
	NewPolicyResource().Schema(context.Background(), resource.SchemaRequest{}, resp)
	for _, f := range []policylang.Field{policylang.FieldCondition, policylang.FieldConsensus, policylang.FieldTime} {
		attr, ok := resp.Schema.Attributes[string(f)].(schema.StringAttribute)
		if !ok {
			t.Fatalf("%s is not a string attribute", f)
		}
		var checked, nonEmpty bool
		for _, v := range attr.Validators {
			if pv, ok := v.(policyExpressionValidator); ok && pv.field == f {
				checked = true
			}
			if strings.Contains(v.Description(context.Background()), "at least 1") {
				nonEmpty = true
			}
		}
		if !checked || !nonEmpty {
			t.Errorf("%s: policy expression check %v, non-empty check %v; want both", f, checked, nonEmpty)
		}
		if !strings.Contains(attr.MarkdownDescription, "`terraform plan` checks the expression") {
			t.Errorf("%s: the description does not say that plan checks the expression", f)
		}
	}
}

// BenchmarkPolicyExpressionValidator is the plan-time check of one
// condition, the one the benchmark's policies carry; bench/RESULTS.md
// relates it to the wall time of a plan of 1000 policies.
func BenchmarkPolicyExpressionValidator(b *testing.B) {
	v := policyExpression(policylang.FieldCondition)
	req := validator.StringRequest{Path: path.Root("condition"), ConfigValue: types.StringValue("activity.resource == 'PRIVATE_KEY'")}
	b.ReportAllocs()
	for b.Loop() {
		var resp validator.StringResponse
		v.ValidateString(context.Background(), req, &resp)
		if resp.Diagnostics.HasError() {
			b.Fatal(resp.Diagnostics)
		}
	}
}
