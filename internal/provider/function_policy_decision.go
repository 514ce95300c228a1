package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

var _ function.Function = policyDecisionFunction{}

// NewPolicyDecisionFunction is provider::custody::policy_decision.
func NewPolicyDecisionFunction() function.Function { return policyDecisionFunction{} }

// policyDecisionFunction tells what a set of policies decides for one
// request, with the engine the emulator decides activities with. It is
// pure: it reads neither the clock nor the service.
type policyDecisionFunction struct{}

// decisionPolicyType is one policy's outcome in the result.
var decisionPolicyType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name": types.StringType, "effect": types.StringType, "outcome": types.StringType, "error": types.StringType,
}}

// decisionAttrTypes is the result.
var decisionAttrTypes = map[string]attr.Type{
	"outcome":    types.StringType,
	"decided_by": types.ListType{ElemType: types.StringType},
	"policies":   types.ListType{ElemType: decisionPolicyType},
}

func (policyDecisionFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "policy_decision"
}

func (policyDecisionFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "What a set of policies decides for one request",
		MarkdownDescription: "Decides one request against a set of policies, offline, in the service's documented order: a " +
			"quorum of root users allows; else an applicable `EFFECT_DENY` denies; else an applicable `EFFECT_ALLOW` allows, or " +
			"requires consensus while its consensus does not hold yet; else nothing allows it (implicit deny). Every policy is " +
			"evaluated, and an evaluation error (`OUTCOME_ERROR`) never allows. Four activity types are governed by the root " +
			"quorum alone, whatever the policies say.\n\n" +
			"It is the engine the provider's emulator decides activities with, so `terraform test` can state what a policy set " +
			"decides (can one person sign? is key export denied even with a quorum?) before the policies are applied. The " +
			"function is pure: the same arguments always give the same answer, so it never reads the clock or the service. " +
			"Pass `time` (`plantimestamp()` serves) when a policy reads `time.now`. An unknown argument gives an unknown result.\n\n" +
			"A transaction is decided by what it carries: the request holds the condition keywords a policy reads " +
			"(`eth.tx`, `eth.eip_712`, `solana.tx`, `wallet`, …), so a transfer limit is stated like any other control. The " +
			"example's second part has one: a transfer of up to 10 ETH is allowed to its requester alone, and one over it " +
			"needs two approvers. Write amounts in wei as decimal strings (`\"12000000000000000000\"`) or numbers; both are " +
			"exact.\n\n" +
			"The result is an object:\n" +
			"- `outcome`: `OUTCOME_ALLOW`, `OUTCOME_DENY_EXPLICIT`, `OUTCOME_DENY_IMPLICIT` or `OUTCOME_REQUIRES_CONSENSUS`;\n" +
			"- `decided_by`: the names of the policies that decided it (the denying ones of an explicit deny, the allowing ones " +
			"of an allow, the waiting ones of a consensus); empty for an implicit deny and when the root quorum decides;\n" +
			"- `policies`: every input policy, in input order, as `{name, effect, outcome, error}`, where `outcome` is " +
			"`OUTCOME_ALLOW`, `OUTCOME_DENY_EXPLICIT`, `OUTCOME_REQUIRES_CONSENSUS`, `OUTCOME_TIME_INACTIVE`, `OUTCOME_ERROR` or " +
			"`OUTCOME_NOT_APPLICABLE`, and `error` is the evaluation error's message (else null).\n\n" +
			"A policy without a name goes by its position (`policies[2]`). An expression the policy language refuses, an " +
			"activity type the service does not have and a missing `time` are errors that name the policy and the position; " +
			"a request's field the policy language does not have, or whose value does not fit its type, is an error that " +
			"names its path (`request.eth.tx.value`).",
		Parameters: []function.Parameter{
			function.DynamicParameter{
				CustomType:         rawDynamicType{},
				Name:               "policies",
				AllowUnknownValues: true,
				MarkdownDescription: "A list of policies. Each is an object with `effect` (`EFFECT_ALLOW` or `EFFECT_DENY`) and " +
					"optionally `name`, `condition`, `consensus` and `time`; null or `\"\"` means absent, and every other attribute " +
					"is ignored, so `values(custody_policy.…)`, a `for` over resources, `data.custody_policies.x.policies` and " +
					"hand-written objects all serve.",
			},
			function.DynamicParameter{
				CustomType:         rawDynamicType{},
				Name:               "request",
				AllowUnknownValues: true,
				MarkdownDescription: "The request, an object with `type` (an `" + client.ActivityTypePrefix + "*`); `approvers`, the users who " +
					"approved so far, the requester first, each `{id, tags, email, alias}` (all but `id` optional); and optionally " +
					"`credentials`, the credentials they approved with, as the `consensus` keyword of that name reads them: a list " +
					"of `{id, user_id, type, credential_id, public_key}`, where `user_id` (one of the approvers) and `type` (a " +
					"`CREDENTIAL_TYPE_*` of the service, such as `CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR` for a passkey) are " +
					"required; " +
					"`params` (the `activity.params` fields, named as the policy language names them: `encoding`, " +
					"`hash_function`, …), `private_key` (`{id, tags, label}`, and the bools `imported` and `exported`, false unless set: the key a signing request signs with), `time` (RFC 3339, required " +
					"when a policy reads `time.now`) and `root_quorum` (`{user_ids, threshold}`). " +
					"It also takes the condition keywords the request carries, named as the policy language names them: `eth` " +
					"(`{tx, eip_712, eip_7702_authorization}`, read as `eth.tx`, `eth.eip_712` and `eth.eip_7702_authorization`); " +
					"`solana`, `tron`, `bitcoin` and `tempo` (each `{tx}`); `wallet`, `wallets` (a list), `wallet_account` and " +
					"`secret`. Their fields are the policy language's (`eth = { tx = { to = \"0x…\", value = " +
					"\"12000000000000000000\" } }`), and a field left out is absent. An integer is a number or a decimal string " +
					"and is exact at any size (wei amounts exceed what a float holds): an `int` field takes a signed 128-bit value, " +
					"a `uint` field (`eth.eip_712.domain.chain_id`) an unsigned 256-bit one. A field the keyword does not have, a " +
					"value of the wrong type and one out of range are errors that name their path (`request.eth.tx.value`). " +
					"Keywords the request does not carry (`eth.tx` without `eth`, `wallet`, `credentials`, …) are absent, so an " +
					"expression that reads them gives `OUTCOME_ERROR`, as the service does for a request without them. " +
					"A request must be one the service can make, by the provider's catalogue of what each activity type " +
					"carries: a keyword or `params` field its type never carries is an error that names its path and says " +
					"what the type carries (`eth.tx` on a signing request whose `params.type` is `TRANSACTION_TYPE_SOLANA`, " +
					"`wallet` beside `private_key`, `private_key` on `" + client.ActivityTypeExportWallet + "`). A signing request targets " +
					"a wallet (with `wallet_account`) or a `private_key`; `" + client.OpSignTransaction.Type + "` carries the " +
					"transaction of its `params.type` (`eth.tx` for `TRANSACTION_TYPE_ETHEREUM`), raw-payload signing carries " +
					"`eth.eip_712` with `params.encoding = \"PAYLOAD_ENCODING_EIP712\"`, and an export carries what it exports.",
			},
		},
		Return: function.ObjectReturn{AttributeTypes: decisionAttrTypes},
	}
}

func (policyDecisionFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var policiesArg, requestArg rawDynamicValue
	if resp.Error = req.Arguments.Get(ctx, &policiesArg, &requestArg); resp.Error != nil {
		return
	}
	args := [2]argument{{position: 0}, {position: 1}}
	result, ferr := decide(&args, policiesArg, requestArg)
	if ferr != nil {
		resp.Error = ferr
		return
	}
	resp.Error = resp.Result.Set(ctx, result)
}

// decide reads both arguments and decides; the result is unknown when a
// part of them it needs is.
func decide(args *[2]argument, policiesArg, requestArg rawDynamicValue) (types.Object, *function.FuncError) {
	unknown := types.ObjectUnknown(decisionAttrTypes)
	policies, ferr := readDecisionPolicies(args[0].root(policiesArg.terraformValue(), "policies"))
	if ferr != nil {
		return unknown, ferr
	}
	request, ferr := readDecisionRequest(args[1].root(requestArg.terraformValue(), "request"))
	if ferr != nil {
		return unknown, ferr
	}
	if args[0].unknown || args[1].unknown {
		return unknown, nil
	}
	if request.Now.IsZero() {
		for i, p := range policies {
			if field := p.readsTime; field != "" {
				return unknown, function.NewArgumentFuncError(1, fmt.Sprintf("request.time is required: policies[%d] (%s) reads time.now "+
					"in its %s expression, and a function never reads the clock; pass time = plantimestamp(), or the time to decide at",
					i, p.describe(), field))
			}
		}
	}
	return decisionObject(policies, policyset.Decide(enginePolicies(policies), request)), nil
}

// decisionObject renders a decision as the function's result.
func decisionObject(policies []decisionPolicy, d policyset.Decision) types.Object {
	decidedBy := make([]attr.Value, len(d.DecidedBy))
	for i, p := range d.DecidedBy {
		decidedBy[i] = types.StringValue(policies[p].policy.Name)
	}
	outcomes := make([]attr.Value, len(d.Policies))
	for i, r := range d.Policies {
		name := types.StringNull()
		if policies[i].named {
			name = types.StringValue(policies[i].policy.Name)
		}
		msg := types.StringNull()
		if r.Err != nil {
			msg = types.StringValue(evaluationMessage(r))
		}
		outcomes[i] = types.ObjectValueMust(decisionPolicyType.AttrTypes, map[string]attr.Value{
			"name": name, "effect": types.StringValue(policies[i].policy.Effect), "outcome": types.StringValue(r.Outcome), "error": msg,
		})
	}
	return types.ObjectValueMust(decisionAttrTypes, map[string]attr.Value{
		"outcome":    types.StringValue(d.Verdict),
		"decided_by": types.ListValueMust(types.StringType, decidedBy),
		"policies":   types.ListValueMust(decisionPolicyType, outcomes),
	})
}

// evaluationMessage is a policy's evaluation error as one line that says
// where it is: "condition, line 1, column 5: ...".
func evaluationMessage(r policyset.PolicyOutcome) string {
	var evalErr *policylang.EvalError
	var refused *policylang.Diagnostic
	switch {
	case errors.As(r.Err, &evalErr):
		return fmt.Sprintf("%s, line %d, column %d: %s", r.Field, evalErr.Span.Start.Line, evalErr.Span.Start.Col, evalErr.Message)
	case errors.As(r.Err, &refused):
		return fmt.Sprintf("%s, line %d, column %d: %s", r.Field, refused.Span.Start.Line, refused.Span.Start.Col, refused.Message)
	}
	return fmt.Sprintf("%s: %v", r.Field, r.Err)
}
