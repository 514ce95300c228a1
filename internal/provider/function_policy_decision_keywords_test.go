package provider

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// twoTo200 is 2^200+plus in decimal, as a configuration writes a number
// beyond the range of an int (signed 128-bit) and of a float64's exact
// integers.
func twoTo200(plus int64) string {
	return new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 200), big.NewInt(plus)).String()
}

// TestAccPolicyDecisionFunctionKeywords: the request's condition keywords
// reach the policies exactly, through the real CLI. A 1 ETH limit tells
// 1 ETH from 1 ETH and one wei, written as a decimal string or as a number
// (beyond 2^53, where a float64 would make them equal); a uint field tells
// 2^200 from 2^200+1; and a value not known yet gives an unknown result.
func TestAccPolicyDecisionFunctionKeywords(t *testing.T) {
	limit := `[
  { name = "over 1 ETH", effect = "EFFECT_DENY", condition = "eth.tx.value > 1000000000000000000" },
  { name = "signing", effect = "EFFECT_ALLOW", condition = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'" },
]`
	transfer := func(value string) string {
		return fmt.Sprintf(`{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "alice" }],
    eth = { tx = { type = "TYPE_2", chain_id = 1, to = "0x1111111111111111111111111111111111111111", value = %s } } }`, value)
	}
	domain := fmt.Sprintf(`[{ name = "huge chain", effect = "EFFECT_ALLOW", condition = "eth.eip_712.domain.chain_id == %s" }]`, twoTo200(0))
	typedData := func(chainID string) string {
		return fmt.Sprintf(`{ type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", approvers = [{ id = "alice" }],
    params = { encoding = "PAYLOAD_ENCODING_EIP712" },
    eth = { eip_712 = { primary_type = "Permit", domain = { name = "Permit2", chain_id = %s }, message = { value = 1 } } } }`, chainID)
	}
	outputs := map[string]string{
		"at_limit_string":   decisionCall(limit, transfer(`"1000000000000000000"`)),
		"over_limit_string": decisionCall(limit, transfer(`"1000000000000000001"`)),
		"at_limit_number":   decisionCall(limit, transfer(`1000000000000000000`)),
		"over_limit_number": decisionCall(limit, transfer(`1000000000000000001`)),
		"uint_number":       decisionCall(domain, typedData(twoTo200(0))),
		"uint_number_plus":  decisionCall(domain, typedData(twoTo200(1))),
		"uint_string":       decisionCall(domain, typedData(`"`+twoTo200(0)+`"`)),
		"uint_string_plus":  decisionCall(domain, typedData(`"`+twoTo200(1)+`"`)),
		"unknown_value":     decisionCall(limit, transfer(`terraform_data.later.output`)),
	}
	config := "resource \"terraform_data\" \"later\" {\n  input = \"5\"\n}\n\n"
	for _, name := range slices.Sorted(maps.Keys(outputs)) {
		config += fmt.Sprintf("output %q {\n  value = %s\n}\n\n", name, outputs[name])
	}
	outcome := func(output, want string, decidedBy ...string) statecheck.StateCheck {
		by := make([]knownvalue.Check, len(decidedBy))
		for i, n := range decidedBy {
			by[i] = knownvalue.StringExact(n)
		}
		return statecheck.ExpectKnownOutputValue(output, knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"outcome": knownvalue.StringExact(want), "decided_by": knownvalue.ListExact(by),
		}))
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectUnknownOutputValue("unknown_value"),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			outcome("at_limit_string", "OUTCOME_ALLOW", "signing"),
			outcome("over_limit_string", "OUTCOME_DENY_EXPLICIT", "over 1 ETH"),
			outcome("at_limit_number", "OUTCOME_ALLOW", "signing"),
			outcome("over_limit_number", "OUTCOME_DENY_EXPLICIT", "over 1 ETH"),
			outcome("uint_number", "OUTCOME_ALLOW", "huge chain"),
			outcome("uint_number_plus", "OUTCOME_DENY_IMPLICIT"),
			outcome("uint_string", "OUTCOME_ALLOW", "huge chain"),
			outcome("uint_string_plus", "OUTCOME_DENY_IMPLICIT"),
			// Known after the apply: 5 wei is under the limit.
			statecheck.ExpectKnownOutputValueAtPath("unknown_value", tfjsonpath.New("outcome"), knownvalue.StringExact("OUTCOME_ALLOW")),
		},
	}}})
}

// TestAccPolicyDecisionFunctionKeywordRange: 2^200 is no int (signed
// 128-bit), written as a number or as a string; the error names the
// request's path and the range, and nothing is decided with a rounded or
// clipped value.
func TestAccPolicyDecisionFunctionKeywordRange(t *testing.T) {
	// Terraform wraps long messages: any space may be a line break.
	want := regexp.MustCompile(strings.ReplaceAll(`request\.eth\.tx\.value: `+twoTo200(0)+
		` does not fit an int, which is signed 128-bit \(from -2\^127 to 2\^127-1\)`, " ", `\s+`))
	request := func(value string) string {
		return fmt.Sprintf(`{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "alice" }], eth = { tx = { value = %s } } }`, value)
	}
	policies := `[{ effect = "EFFECT_DENY", condition = "eth.tx.value > 1000000000000000000" }]`
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: decisionOutput(policies, request(twoTo200(0))), ExpectError: want},
		{Config: decisionOutput(policies, request(`"`+twoTo200(0)+`"`)), ExpectError: want},
	}})
}

// decisionCall is a call of the function, for an output's value.
func decisionCall(policies, request string) string {
	return fmt.Sprintf("provider::custody::policy_decision(%s, %s)", policies, request)
}
