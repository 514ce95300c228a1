package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// runDecision runs policy_decision on JSON arguments as Terraform would
// pass them: the error's text, or else the result's outcome.
func runDecision(t *testing.T, policies, request string) (outcome, errText string) {
	t.Helper()
	pv, ok1 := fuzzArgument(policies)
	rv, ok2 := fuzzArgument(request)
	if !ok1 || !ok2 {
		t.Fatalf("not JSON: %s / %s", policies, request)
	}
	resp := function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(decisionAttrTypes))}
	policyDecisionFunction{}.Run(context.Background(), function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{pv, rv})}, &resp)
	if resp.Error != nil {
		return "", resp.Error.Error()
	}
	obj, ok := resp.Result.Value().(types.Object)
	if !ok {
		t.Fatalf("result is a %T", resp.Result.Value())
	}
	if obj.IsUnknown() {
		return "(unknown)", ""
	}
	s, _ := obj.Attributes()["outcome"].(types.String)
	return s.ValueString(), ""
}

// A request its type never makes, by the catalogue's request table, is an
// argument error at the keyword's or param's path; a possible one, even
// an incomplete one, is decided.
func TestPolicyDecisionRefusesRequestsTheCatalogueRulesOut(t *testing.T) {
	allow := `[{"effect":"EFFECT_ALLOW","name":"all"}]`
	const a = `"approvers":[{"id":"a"}]`
	for _, tc := range []struct{ request, want string }{
		{`{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2",` + a + `,"params":{"type":"TRANSACTION_TYPE_SOLANA"},"eth":{"tx":{"value":1}}}`,
			"request.eth.tx: by the catalogue, ACTIVITY_TYPE_SIGN_TRANSACTION_V2 carries eth.tx only when activity.params.type is " +
				`TRANSACTION_TYPE_ETHEREUM, and this request's activity.params.type is "TRANSACTION_TYPE_SOLANA" (it carries bitcoin.tx exactly when`},
		{`{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",` + a + `,"private_key":{"id":"k"},"wallet":{"id":"w"}}`,
			"request.private_key: by the catalogue, ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2 carries at most one of wallet, private_key, and this " +
				"request carries wallet and private_key"},
		{`{"type":"ACTIVITY_TYPE_EXPORT_WALLET",` + a + `,"wallet":{"id":"w"},"private_key":{"id":"k"}}`,
			"request.private_key: by the catalogue, ACTIVITY_TYPE_EXPORT_WALLET never carries private_key (it carries wallet always; " +
				"activity.params target_public_key)"},
		{`{"type":"ACTIVITY_TYPE_EXPORT_WALLET",` + a + `,"eth":{"tx":{"value":1}}}`,
			"request.eth.tx: by the catalogue, ACTIVITY_TYPE_EXPORT_WALLET never carries eth.tx"},
		{`{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",` + a + `,"params":{"encoding":"PAYLOAD_ENCODING_TEXT_UTF8"},"eth":{"eip_712":{"primary_type":"Permit"}}}`,
			"request.eth.eip_712: by the catalogue, ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2 carries eth.eip_712 only when activity.params.encoding is PAYLOAD_ENCODING_EIP712"},
		{`{"type":"ACTIVITY_TYPE_CREATE_POLICIES",` + a + `,"params":{"encoding":"PAYLOAD_ENCODING_HEXADECIMAL"}}`,
			"request.params.encoding: by the catalogue, ACTIVITY_TYPE_CREATE_POLICIES exposes no activity.params.encoding (it carries " +
				"no keyword but activity; no activity.params)"},
		{`{"type":"ACTIVITY_TYPE_CREATE_POLICIES",` + a + `,"secret":{"static_properties":{"kind":"creditCard"}}}`,
			"request.secret: by the catalogue, ACTIVITY_TYPE_CREATE_POLICIES never carries secret"},
		// Possible requests, complete or not.
		{`{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2",` + a + `,"params":{"type":"TRANSACTION_TYPE_ETHEREUM"},"private_key":{"id":"k"},"eth":{"tx":{"value":1}}}`, ""},
		{`{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2",` + a + `,"eth":{"tx":{"value":1}}}`, ""},
		{`{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2",` + a + `,"params":{"type":"TRANSACTION_TYPE_SOLANA"},"wallet":{"id":"w"},"wallet_account":{"address":"x"}}`, ""},
		{`{"type":"ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",` + a + `,"params":{"target_public_key":"04ab"},"wallet":{"id":"w"},"wallet_account":{"address":"x"}}`, ""},
		{`{"type":"ACTIVITY_TYPE_EXPORT_SECRETS",` + a + `,"secret":{"static_properties":{"kind":"creditCard"}}}`, ""},
		// A request whose type is not known yet is not judged.
		{`{"type":"(unknown)",` + a + `,"wallet":{"id":"w"},"private_key":{"id":"k"}}`, ""},
	} {
		outcome, err := runDecision(t, allow, tc.request)
		if tc.want == "" && err != "" {
			t.Errorf("%s: %s", tc.request, err)
		}
		if tc.want != "" && !strings.Contains(strings.Join(strings.Fields(err), " "), tc.want) {
			t.Errorf("%s: got %q (outcome %s), want an error containing %q", tc.request, err, outcome, tc.want)
		}
	}
}

// The credentials member: each {id, user_id, type, credential_id,
// public_key}, read by a consensus; user_id and type required, type a
// documented one (the closest named), user_id an approver's; null or
// absent leaves the keyword out, so reading it errs.
func TestPolicyDecisionCredentials(t *testing.T) {
	passkey := `[{"name":"passkey","effect":"EFFECT_ALLOW","consensus":"credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' && c.user_id == 'a' && c.id == 'cred-1' && c.credential_id == 'cid' && c.public_key == 'pk')"}]`
	const req = `{"type":"ACTIVITY_TYPE_CREATE_POLICIES","approvers":[{"id":"a"},{"id":"b"}]`
	for _, tc := range []struct{ request, outcome, err string }{
		{req + `,"credentials":[{"id":"cred-1","user_id":"a","type":"CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR","credential_id":"cid","public_key":"pk"}]}`, "OUTCOME_ALLOW", ""},
		{req + `,"credentials":[{"user_id":"b","type":"CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"},{"user_id":"a","type":"CREDENTIAL_TYPE_API_KEY_P256"}]}`, "OUTCOME_REQUIRES_CONSENSUS", ""},
		{req + `,"credentials":[]}`, "OUTCOME_REQUIRES_CONSENSUS", ""},
		{req + `}`, "OUTCOME_DENY_IMPLICIT", ""}, // the consensus errs: no credentials keyword
		{req + `,"credentials":null}`, "OUTCOME_DENY_IMPLICIT", ""},
		{req + `,"credentials":[{"user_id":"a","type":"CREDENTIAL_TYPE_WEBAUTHN"}]}`, "",
			`request.credentials[0].type: "CREDENTIAL_TYPE_WEBAUTHN" is not a credential type of the service; the closest is CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR`},
		{req + `,"credentials":[{"user_id":"a","type":"PASSWORD"}]}`, "",
			`request.credentials[0].type: "PASSWORD" is not a credential type of the service (CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR, CREDENTIAL_TYPE_API_KEY_P256,`},
		{req + `,"credentials":[{"user_id":"a"}]}`, "", `request.credentials[0].type: is required`},
		{req + `,"credentials":[{"type":"CREDENTIAL_TYPE_LOGIN"}]}`, "", `request.credentials[0].user_id: is required`},
		{req + `,"credentials":[{"user_id":"a","type":"CREDENTIAL_TYPE_LOGIN"},{"user_id":"mallory","type":"CREDENTIAL_TYPE_LOGIN"}]}`, "",
			`request.credentials[1].user_id: "mallory" is none of the approvers: a request's credentials are those its approvers approved with`},
		{req + `,"credentials":[{"user_id":"a","type":"CREDENTIAL_TYPE_LOGIN","key":"x"}]}`, "", `request.credentials[0]: has no attribute "key"`},
		{req + `,"credentials":{"user_id":"a"}}`, "", `request.credentials: must be a list, not an object`},
		// Not known yet: the result is unknown, and no error.
		{req + `,"credentials":[{"user_id":"(unknown)","type":"(unknown)"}]}`, "(unknown)", ""},
	} {
		outcome, err := runDecision(t, passkey, tc.request)
		err = strings.Join(strings.Fields(err), " ")
		if tc.err == "" && (err != "" || outcome != tc.outcome) {
			t.Errorf("%s: got %s %q, want %s", tc.request, outcome, err, tc.outcome)
		}
		if tc.err != "" && !strings.Contains(err, tc.err) {
			t.Errorf("%s: got %q, want an error containing %q", tc.request, err, tc.err)
		}
	}
}

// TestAccPolicyDecisionFunctionCredentials: through the real CLI, a
// consensus that wants a passkey approval reads the request's credentials:
// a passkey allows, an API key alone waits, and a request without
// credentials errs in that policy (the keyword is absent).
func TestAccPolicyDecisionFunctionCredentials(t *testing.T) {
	policies := `[{ name = "passkey", effect = "EFFECT_ALLOW", consensus = "credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')" }]`
	request := func(credentials string) string {
		return `{ type = "ACTIVITY_TYPE_CREATE_POLICIES", approvers = [{ id = "alice" }]` + credentials + ` }`
	}
	config := ""
	for name, call := range map[string]string{
		"passkey": decisionCall(policies, request(`, credentials = [{ id = "c1", user_id = "alice", type = "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR", credential_id = "cid", public_key = "02ab" }]`)),
		"api_key": decisionCall(policies, request(`, credentials = [{ user_id = "alice", type = "CREDENTIAL_TYPE_API_KEY_P256" }]`)),
		"none":    decisionCall(policies, request(``)),
	} {
		config += fmt.Sprintf("output %q {\n  value = %s\n}\n\n", name, call)
	}
	outcome := func(output, want, policyOutcome string) statecheck.StateCheck {
		return statecheck.ExpectKnownOutputValue(output, knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"outcome": knownvalue.StringExact(want),
			"policies": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"outcome": knownvalue.StringExact(policyOutcome)})}),
		}))
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			outcome("passkey", "OUTCOME_ALLOW", "OUTCOME_ALLOW"),
			outcome("api_key", "OUTCOME_REQUIRES_CONSENSUS", "OUTCOME_REQUIRES_CONSENSUS"),
			outcome("none", "OUTCOME_DENY_IMPLICIT", "OUTCOME_ERROR"),
		},
	}}})
}
