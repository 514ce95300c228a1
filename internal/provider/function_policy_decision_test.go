package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset/policysettest"
)

// TestAccPolicyDecisionFunctionTable runs the shared table of decisions
// (internal/policyset/testdata/decisions.json) through the function with
// the real CLI: each case's policies and request go in as the JSON the
// table holds, decoded by jsondecode, and the result must be the table's.
// The engine's and the emulator's suites run the same table.
func TestAccPolicyDecisionFunctionTable(t *testing.T) {
	cases := policysettest.Load(t)
	var config strings.Builder
	var checks []statecheck.StateCheck
	for i, c := range cases {
		fmt.Fprintf(&config, "# %s\noutput \"case_%d\" {\n  value = provider::custody::policy_decision(jsondecode(%q), jsondecode(%q))\n}\n\n",
			c.Name, i, c.RawPolicies, c.RawRequest)
		checks = append(checks, statecheck.ExpectKnownOutputValue(fmt.Sprintf("case_%d", i), wantDecision(c)))
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{Config: config.String(), ConfigStateChecks: checks}}})
}

// wantDecision is the function's result a case of the table wants.
func wantDecision(c policysettest.Case) knownvalue.Check {
	decidedBy := make([]knownvalue.Check, len(c.Want.DecidedBy))
	for i, name := range c.Want.DecidedBy {
		decidedBy[i] = knownvalue.StringExact(name)
	}
	policies := make([]knownvalue.Check, len(c.Want.Policies))
	for i, p := range c.Want.Policies {
		var errCheck knownvalue.Check = knownvalue.Null()
		if p.Error != "" {
			errCheck = knownvalue.StringRegexp(regexp.MustCompile(regexp.QuoteMeta(p.Error)))
		}
		policies[i] = knownvalue.ObjectExact(map[string]knownvalue.Check{
			"name": knownvalue.StringExact(p.Name), "effect": knownvalue.StringExact(c.Policies[i].Effect),
			"outcome": knownvalue.StringExact(p.Outcome), "error": errCheck,
		})
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"outcome":    knownvalue.StringExact(c.Want.Verdict),
		"decided_by": knownvalue.ListExact(decidedBy),
		"policies":   knownvalue.ListExact(policies),
	})
}

// decisionOutput is an output named d of the function's result.
func decisionOutput(policies, request string) string {
	return fmt.Sprintf("output \"d\" {\n  value = provider::custody::policy_decision(%s, %s)\n}\n", policies, request)
}

// TestAccPolicyDecisionFunctionErrors: what the function refuses is an
// error that names the argument's part, the policy and the position, as
// the plan-time check of custody_policy words it.
func TestAccPolicyDecisionFunctionErrors(t *testing.T) {
	tagRequest := `{ type = "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", approvers = [{ id = "alice" }] }`
	step := func(policies, request, want string) resource.TestStep {
		// Terraform wraps long messages: any space may be a line break.
		return resource.TestStep{Config: decisionOutput(policies, request), ExpectError: regexp.MustCompile(strings.ReplaceAll(want, " ", `\s+`))}
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		step(`[{ name = "dq", effect = "EFFECT_ALLOW", condition = "activity.type == \"x\"" }]`, tagRequest,
			`policies\[0\]: policy "dq": invalid policy condition expression at line 1, column 18:\s+activity\.type == "x"\s+\^\s+double-quoted strings are not supported`),
		step(`[{ effect = "EFFECT_ALLOW", consensus = "approvers.count() >= 2 &&" }]`, tagRequest,
			`policies\[0\]: this policy: invalid policy consensus expression at line 1, column 26:`),
		step(`[{ name = "p", effect = "EFFECT_MAYBE" }]`, tagRequest, `policies\[0\]\.effect: must be EFFECT_ALLOW or EFFECT_DENY, not\s+"EFFECT_MAYBE"`),
		step(`[{ name = "p" }]`, tagRequest, `policies\[0\]\.effect: is required`),
		step(`"everything"`, tagRequest, `policies: must be a list, not a string`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V9", approvers = [{ id = "alice" }] }`,
			`request\.type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V9" is not an activity type of the service; the closest is ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2\.`),
		// A prefix of a real type suggests that type (issue 33), not the
		// nearest by edit distance (ACTIVITY_TYPE_INIT_OTP).
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_RAW", approvers = [{ id = "alice" }] }`,
			`request\.type: "ACTIVITY_TYPE_SIGN_RAW" is not an activity type of the service; the closest is ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2\.`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_CREATE_POLICIES", approvers = [] }`, `request\.approvers: must hold at least the requester`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_CREATE_POLICIES", approver = [{ id = "alice" }] }`,
			`request: has no attribute "approver"; it takes type, approvers, credentials, params,\s+private_key, time, root_quorum`),
		step(`[{ name = "office hours", effect = "EFFECT_ALLOW", time = "CronSpan('0 9 * * 1-5', '8h', 'UTC')" }]`, tagRequest,
			`request\.time is required: policies\[0\] \(policy "office hours"\) reads time\.now in its\s+time expression(.|\n)*plantimestamp\(\)`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_CREATE_POLICIES", approvers = [{ id = "a" }], time = "yesterday" }`,
			`request\.time: "yesterday" is not an RFC 3339 time`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_INIT_OTP_AUTH_V3", approvers = [{ id = "a" }], params = { otp_length = 1.5 } }`,
			`request\.params\.otp_length: 1\.5 is not a whole number`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_CREATE_POLICIES", approvers = [{ id = "a" }], root_quorum = { user_ids = ["a"], threshold = 2 } }`,
			`request\.root_quorum\.threshold: must be a whole number from 1 to the number of\s+user_ids \(1\)`),
		step(`null`, tagRequest, `Invalid function argument`),
		// The condition keywords: the engine's refusal, at its path below
		// the request.
		step(`[]`, txRequest(`{ vaule = "1" }`),
			`request\.eth\.tx\.vaule: EthereumTransaction has no field "vaule"; did you mean value\? \(its fields:`),
		step(`[]`, txRequest(`{ to = 5 }`), `request\.eth\.tx\.to: must be a string, not a number`),
		step(`[]`, txRequest(`{ value = true }`), `request\.eth\.tx\.value: must be an int \(a number or a decimal string\), not a bool`),
		step(`[]`, txRequest(`{ value = "2e18" }`), `request\.eth\.tx\.value: "2e18" is not a whole number: write it in decimal digits`),
		step(`[]`, txRequest(`{ value = 1.5 }`), `request\.eth\.tx\.value: 1\.5 is not a whole number`),
		step(`[]`, txRequest(`{ gas = "170141183460469231731687303715884105728" }`),
			`request\.eth\.tx\.gas: 170141183460469231731687303715884105728 does not fit an int, which is signed 128-bit`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", approvers = [{ id = "a" }], eth = { eip_712 = { domain = { chain_id = -1 } } } }`,
			`request\.eth\.eip_712\.domain\.chain_id: -1 does not fit a uint, which is unsigned 256-bit`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "a" }], eth = { txn = {} } }`,
			`request\.eth\.txn: eth has no keyword "txn"; did you mean tx\? \(its keywords: eip_712, eip_7702_authorization, tx\)`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "a" }], eth = "0xab" }`,
			`request\.eth: must be an object of the eth keywords`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_DELETE_WALLETS", approvers = [{ id = "a" }], wallets = [{ id = "w" }, { exported = "yes" }] }`,
			`request\.wallets\[1\]\.exported: must be a bool, not a string`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "a" }], ethereum = {} }`,
			`request: has no attribute "ethereum"; it takes type, approvers, credentials, params, private_key, time, root_quorum, bitcoin, eth, secret, solana, tempo, tron, wallet, wallet_account, wallets`),
		// What the request carries, held to the catalogue's request table.
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "a" }], params = { type = "TRANSACTION_TYPE_SOLANA" }, eth = { tx = { value = 1 } } }`,
			`request\.eth\.tx: by the catalogue, ACTIVITY_TYPE_SIGN_TRANSACTION_V2 carries eth\.tx only when activity\.params\.type is TRANSACTION_TYPE_ETHEREUM`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", approvers = [{ id = "a" }], wallet = { id = "w" }, private_key = { id = "k" } }`,
			`request\.private_key: by the catalogue, ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2 carries at most one of wallet, private_key`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_EXPORT_WALLET", approvers = [{ id = "a" }], private_key = { id = "k" } }`,
			`request\.private_key: by the catalogue, ACTIVITY_TYPE_EXPORT_WALLET never carries private_key \(it carries wallet always`),
		step(`[]`, `{ type = "ACTIVITY_TYPE_CREATE_POLICIES", approvers = [{ id = "a" }], credentials = [{ user_id = "a", type = "CREDENTIAL_TYPE_API_KEY_P265" }] }`,
			`request\.credentials\[0\]\.type: "CREDENTIAL_TYPE_API_KEY_P265" is not a credential type of the service; the closest is CREDENTIAL_TYPE_API_KEY_P256`),
	}})
}

// txRequest is a transaction signing request whose eth.tx is tx.
func txRequest(tx string) string {
	return fmt.Sprintf(`{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "a" }], eth = { tx = %s } }`, tx)
}

// TestAccPolicyDecisionFunctionInPlan decides over custody_policy
// resources and the custody_policies data source as they are: at plan,
// before the policies exist (their ids unknown, the decision known), and
// after the apply. A request whose type is not known yet gives an unknown
// result.
func TestAccPolicyDecisionFunctionInPlan(t *testing.T) {
	e := newAccEmulator(t)
	config := e.config(`
resource "custody_policy" "p" {
  count     = 2
  name      = ["export", "signing"][count.index]
  effect    = ["EFFECT_DENY", "EFFECT_ALLOW"][count.index]
  condition = ["activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'", "activity.action == 'SIGN'"][count.index]
  consensus = [null, "approvers.count() >= 2"][count.index]
}

resource "terraform_data" "later" {
  input = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"
}

data "custody_policies" "all" {
  depends_on = [custody_policy.p]
}

locals {
  by_name  = { for p in custody_policy.p : p.name => p }
  two_sign = { type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", approvers = [{ id = "a" }, { id = "b" }], private_key = { id = "k" } }
}

output "resources" {
  value = provider::custody::policy_decision(values(local.by_name), local.two_sign)
}

output "for_expression" {
  value = provider::custody::policy_decision([for p in custody_policy.p : p], { type = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", approvers = [{ id = "a" }, { id = "b" }, { id = "c" }] })
}

output "data_source" {
  value = provider::custody::policy_decision(data.custody_policies.all.policies, local.two_sign).outcome
}

output "unknown_type" {
  value = provider::custody::policy_decision(custody_policy.p, { type = terraform_data.later.output, approvers = [{ id = "a" }] })
}
`)
	signing := knownvalue.ObjectExact(map[string]knownvalue.Check{
		"outcome": knownvalue.StringExact("OUTCOME_ALLOW"), "decided_by": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("signing")}),
		"policies": knownvalue.ListExact([]knownvalue.Check{
			knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("export"), "outcome": knownvalue.StringExact("OUTCOME_NOT_APPLICABLE")}),
			knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("signing"), "outcome": knownvalue.StringExact("OUTCOME_ALLOW")}),
		}),
	})
	export := knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"outcome": knownvalue.StringExact("OUTCOME_DENY_EXPLICIT"), "decided_by": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("export")}),
	})
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectKnownOutputValue("resources", signing),
			plancheck.ExpectKnownOutputValue("for_expression", export),
			plancheck.ExpectUnknownOutputValue("unknown_type"),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownOutputValue("resources", signing),
			statecheck.ExpectKnownOutputValue("for_expression", export),
			statecheck.ExpectKnownOutputValue("data_source", knownvalue.StringExact("OUTCOME_ALLOW")),
			statecheck.ExpectKnownOutputValueAtPath("unknown_type", tfjsonpath.New("outcome"), knownvalue.StringExact("OUTCOME_DENY_EXPLICIT")),
		},
	}}})
}

// TestPolicyDecisionFirstErrorIsStable: a request with several faults
// gets the same first error every run (attributes are read in name order,
// not in a map's order).
func TestPolicyDecisionFirstErrorIsStable(t *testing.T) {
	policies, _ := fuzzArgument(`[{"effect":"EFFECT_ALLOW"}]`)
	requests := []string{
		`{"type":"ACTIVITY_TYPE_CREATE_POLICIES","approvers":[{"id":"a"}],"zz":1,"aa":2,"mm":3}`,
		`{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2","approvers":[{"id":"a"}],"private_key":{"id":"k","imported":"x","exported":"y"}}`,
		`{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2","approvers":[{"id":"a"}],"params":{"b":1.5,"a":2.5,"c":3.5}}`,
		`{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2","approvers":[{"id":"a"}],"wallet":{"labell":1},"eth":{"tx":{"vaule":1,"too":2}},"solana":{"txn":{}}}`,
		`{"type":"ACTIVITY_TYPE_EXPORT_WALLET","approvers":[{"id":"a"}],"private_key":{"id":"k"},"wallets":[],"eth":{"tx":{}},"params":{"zz":"1","aa":"2"}}`,
	}
	for _, request := range requests {
		rv, ok := fuzzArgument(request)
		if !ok {
			t.Fatalf("not JSON: %s", request)
		}
		var first string
		for i := range 50 {
			resp := function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(decisionAttrTypes))}
			policyDecisionFunction{}.Run(context.Background(), function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{policies, rv})}, &resp)
			if resp.Error == nil {
				t.Fatalf("%s: no error", request)
			}
			if i == 0 {
				first = resp.Error.Error()
			} else if got := resp.Error.Error(); got != first {
				t.Fatalf("%s: the first error was %q, then %q", request, first, got)
			}
		}
		t.Logf("%s: %s", request, first)
	}
}
