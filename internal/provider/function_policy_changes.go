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
	"activity_type": types.StringType, "before": types.StringType, "after": types.StringType,
	"example": types.StringType, "words": types.StringType,
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
		MarkdownDescription: "Compares two policy sets, offline, and returns every sampled request whose decision differs: " +
			"the rows of the access report that `terraform plan` shows for each `custody_policy` change (`Access change: " +
			"<name>`), here over the whole sets, so joint effects of several changes (two denies that both cover key export, " +
			"deleted together) show too. The requests are built from the policies themselves: for each activity type a " +
			"policy can apply to, the values the policies compare against (each string constant, one value that matches " +
			"none, each numeric threshold and its neighbours, each user, tag, wallet and destination named) and approver " +
			"sets (the requester alone, with each user or tag a consensus names, enough approvers for each count). " +
			"Requesters and approvers are never root users. It is a reviewer's aid, not a proof: a request the sample does " +
			"not hold is not compared.\n\n" +
			"The result is a list of objects, widening changes first (anything to `OUTCOME_ALLOW`, then a deny to " +
			"`OUTCOME_REQUIRES_CONSENSUS`), then by activity type:\n" +
			"- `activity_type`: the request's `ACTIVITY_TYPE_*`;\n" +
			"- `before`, `after`: the decision outcomes, `OUTCOME_ALLOW`, `OUTCOME_REQUIRES_CONSENSUS`, " +
			"`OUTCOME_DENY_EXPLICIT` or `OUTCOME_DENY_IMPLICIT`, as `policy_decision` returns them;\n" +
			"- `example`: the request as HCL that `policy_decision` accepts as its `request` argument as is;\n" +
			"- `words`: who and what the request concerns, for a reviewer.\n\n" +
			"An empty list says the sample found no decision that changes: `length(provider::custody::policy_changes(...)) " +
			"== 0` in a `terraform test` assertion states \"this change grants and takes no access\", and a `for` over the " +
			"rows with `after == \"OUTCOME_ALLOW\"` states \"it grants none\". The function is pure: it never reads the " +
			"clock or the service. An unknown part that it reads gives an unknown result.",
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
	resp.Error = resp.Result.Set(ctx, policyChangesList(review.Compare(enginePolicies(before), enginePolicies(after))))
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
		rows[i] = types.ObjectValueMust(policyChangeType.AttrTypes, map[string]attr.Value{
			"activity_type": types.StringValue(row.Type), "before": types.StringValue(row.Before), "after": types.StringValue(row.After),
			"example": types.StringValue(row.Example), "words": types.StringValue(row.Words),
		})
	}
	return types.ListValueMust(policyChangeType, rows)
}
