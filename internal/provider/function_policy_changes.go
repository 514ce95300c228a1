package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

var _ function.Function = policyChangesFunction{}

// NewPolicyChangesFunction is provider::custody::policy_changes.
func NewPolicyChangesFunction() function.Function { return policyChangesFunction{} }

// policyChangesFunction is the plan's access review offline, over two
// whole policy sets: what `terraform test` and a pull request's combined
// report read. It is pure, like policy_decision.
type policyChangesFunction struct{}

// policyChangeType is one row of the result.
var policyChangeType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"activity_type": types.StringType, "activity_types": types.ListType{ElemType: types.StringType}, "before": types.StringType,
	"after": types.StringType, "region": types.StringType, "proved": types.BoolType, "example": types.StringType, "words": types.StringType,
}}

func (policyChangesFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "policy_changes"
}

// policySetParameter is a policies argument read as policy_decision reads
// its own.
func policySetParameter(name, what string) function.DynamicParameter {
	return function.DynamicParameter{
		CustomType:         rawDynamicType{},
		Name:               name,
		AllowUnknownValues: true,
		MarkdownDescription: what + ", read as `policy_decision` reads its `policies`: a list of objects, each with `effect` " +
			"(`EFFECT_ALLOW` or `EFFECT_DENY`) and optionally `name`, `condition`, `consensus` and `time`; null or `\"\"` means " +
			"absent, and every other attribute is ignored (it may be unknown at plan without making the result unknown), so " +
			"`values(custody_policy.…)`, `data.custody_policies.x.policies` and hand-written objects all serve.",
	}
}

func (policyChangesFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "What a change of policy sets does to who can do what",
		MarkdownDescription: "Compares two policy sets, offline, for every request, not a sample: the rows of the access report " +
			"that `terraform plan` shows for each `custody_policy` change (`Access change: <name>`), here over the whole sets, so " +
			"joint effects of several changes (two denies that both cover key export, deleted together) show too. For each " +
			"activity type a changed policy can apply to, the policies are compiled into one formula over an abstract request, " +
			"and a solver finds every region of requests the two sets decide differently; each region's witness is then decided " +
			"by the same engine as `policy_decision` before it is returned. Requesters and approvers are never root users. " +
			"\"Every request\" means every request of the request model described in the guide \"Reviewing policy changes\".\n\n" +
			"The result is a list of objects, widening changes first (anything to `OUTCOME_ALLOW`, then a deny to " +
			"`OUTCOME_REQUIRES_CONSENSUS`), then by activity type, then what could not be proved:\n" +
			"- `activity_type`: the witness's `ACTIVITY_TYPE_*`; `activity_types`: every type that shares the row;\n" +
			"- `before`, `after`: the decision outcomes, `OUTCOME_ALLOW`, `OUTCOME_REQUIRES_CONSENSUS`, " +
			"`OUTCOME_DENY_EXPLICIT` or `OUTCOME_DENY_IMPLICIT`, as `policy_decision` returns them; `after` is `NOT_PROVED` " +
			"for a comparison the analysis could not decide, and `words` then say what stopped it;\n" +
			"- `region`: the row's requests, stated over the fields the changed policies read;\n" +
			"- `proved`: the witness decides `before` and `after` (false only for `NOT_PROVED`);\n" +
			"- `example`: the witness as HCL that `policy_decision` accepts as its `request` argument as is;\n" +
			"- `words`: who and what the row concerns, for a reviewer.\n\n" +
			"An empty list is a proof that no request's decision changes: `length(provider::custody::policy_changes(...)) == 0` " +
			"in a `terraform test` assertion states \"this change grants and takes no access\". A `for` over the rows with " +
			"`c.after == \"OUTCOME_ALLOW\" || c.after == \"NOT_PROVED\"` states \"it grants none\", and fails where it cannot be " +
			"proved. The function is pure: it never reads the clock or the service. An unknown part that it reads gives an " +
			"unknown result.",
		Parameters: []function.Parameter{
			policySetParameter("before", "The policies before the change"),
			policySetParameter("after", "The policies after the change"),
		},
		Return: function.ListReturn{ElementType: policyChangeType},
	}
}

func (policyChangesFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var beforeArg, afterArg rawDynamicValue
	if resp.Error = req.Arguments.Get(ctx, &beforeArg, &afterArg); resp.Error != nil {
		return
	}
	args := [2]argument{{position: 0}, {position: 1}}
	before, ferr := readDecisionPolicies(args[0].root(beforeArg.terraformValue(), "before"))
	if ferr != nil {
		resp.Error = ferr
		return
	}
	after, ferr := readDecisionPolicies(args[1].root(afterArg.terraformValue(), "after"))
	if ferr != nil {
		resp.Error = ferr
		return
	}
	if args[0].unknown || args[1].unknown {
		resp.Error = resp.Result.Set(ctx, types.ListUnknown(policyChangeType))
		return
	}
	resp.Error = resp.Result.Set(ctx, policyChangesList(review.Compare(enginePolicies(before), enginePolicies(after), nil)))
}

// enginePolicies are the policies as the engine reads them.
func enginePolicies(policies []decisionPolicy) []policyset.Policy {
	out := make([]policyset.Policy, len(policies))
	for i, p := range policies {
		out[i] = p.policy
	}
	return out
}

// policyChangesList renders a report's rows as the function's result.
func policyChangesList(r review.Report) types.List {
	rows := make([]attr.Value, len(r.Rows))
	for i, row := range r.Rows {
		typeList := make([]attr.Value, len(row.Types))
		for k, t := range row.Types {
			typeList[k] = types.StringValue(t)
		}
		rows[i] = types.ObjectValueMust(policyChangeType.AttrTypes, map[string]attr.Value{
			"activity_type": types.StringValue(row.Type), "activity_types": types.ListValueMust(types.StringType, typeList),
			"before": types.StringValue(row.Before), "after": types.StringValue(row.After), "region": types.StringValue(row.Region),
			"proved": types.BoolValue(row.Proved), "example": types.StringValue(row.Example), "words": types.StringValue(row.Words),
		})
	}
	return types.ListValueMust(policyChangeType, rows)
}
