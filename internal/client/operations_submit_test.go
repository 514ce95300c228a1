package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// submitCase is one activity endpoint: what the client must send and how
// it must read the result the service answers with.
type submitCase struct {
	op     string
	typ    string
	call   func(ctx context.Context, c *Client) (any, error)
	params string // the parameters the service must receive
	result string // activity.result as the service answers
	want   any    // the typed result the caller must get
}

var ts = `{"seconds":"1795300000","nanos":"0"}`

var submitCases = []submitCase{
	{"sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
		submits((*Client).SignRawPayload, SignRawPayloadParams{SignWith: "0xabc", Payload: "hello", Encoding: "PAYLOAD_ENCODING_TEXT_UTF8", HashFunction: "HASH_FUNCTION_SHA256"}),
		`{"signWith":"0xabc","payload":"hello","encoding":"PAYLOAD_ENCODING_TEXT_UTF8","hashFunction":"HASH_FUNCTION_SHA256"}`,
		`{"signRawPayloadResult":{"r":"01","s":"02","v":"00"}}`,
		SignRawPayloadResult{R: "01", S: "02", V: "00"}},
	{"recover_user", "ACTIVITY_TYPE_RECOVER_USER",
		submits((*Client).RecoverUser, RecoverUserParams{UserID: "u-1", Authenticator: AuthenticatorParams{AuthenticatorName: "yubikey", Challenge: "ch",
			Attestation: Attestation{CredentialID: "cred", ClientDataJSON: "cdj", AttestationObject: "ao", Transports: []string{"AUTHENTICATOR_TRANSPORT_USB"}}}}),
		`{"authenticator":{"authenticatorName":"yubikey","challenge":"ch","attestation":{"credentialId":"cred","clientDataJson":"cdj","attestationObject":"ao","transports":["AUTHENTICATOR_TRANSPORT_USB"]}},"userId":"u-1"}`,
		`{"recoverUserResult":{"authenticatorId":["auth-1"]}}`,
		RecoverUserResult{AuthenticatorID: []string{"auth-1"}}},
	{"create_policies", "ACTIVITY_TYPE_CREATE_POLICIES",
		submits((*Client).CreatePolicies, CreatePoliciesParams{Policies: []PolicyParams{
			{PolicyName: "allow admins", Effect: EffectAllow, Condition: "activity.type == 'X'", Consensus: "approvers.count() >= 2", Notes: "n1", Time: "t"},
			{PolicyName: "deny", Effect: EffectDeny, Notes: ""},
		}}),
		`{"policies":[{"policyName":"allow admins","effect":"EFFECT_ALLOW","condition":"activity.type == 'X'","consensus":"approvers.count() >= 2","notes":"n1","time":"t"},{"policyName":"deny","effect":"EFFECT_DENY","notes":""}]}`,
		`{"createPoliciesResult":{"policyIds":["p-1","p-2"]}}`,
		CreatePoliciesResult{PolicyIDs: []string{"p-1", "p-2"}}},
	{"set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
		submits((*Client).SetIPAllowlist, SetIPAllowlistParams{Enabled: ptr(true), OnEvaluationError: OnEvaluationErrorDeny,
			Rules: []IPAllowlistRuleParams{{CIDR: "10.0.0.0/8", Label: "office"}, {CIDR: "2001:db8::/32"}}}),
		`{"enabled":true,"rules":[{"cidr":"10.0.0.0/8","label":"office"},{"cidr":"2001:db8::/32"}],"onEvaluationError":"DENY"}`,
		`{"setIpAllowlistResult":{}}`,
		EmptyResult{}},
	{"set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
		submits((*Client).SetIPAllowlist, SetIPAllowlistParams{PublicKey: "02aa"}),
		`{"publicKey":"02aa","rules":[]}`,
		`{}`, // an empty result object may be left out
		EmptyResult{}},
	{"verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2",
		submits((*Client).VerifyOtp, VerifyOtpParams{OtpID: "otp-1", EncryptedOtpBundle: "bundle", ExpirationSeconds: "3600"}),
		`{"otpId":"otp-1","encryptedOtpBundle":"bundle","expirationSeconds":"3600"}`,
		`{"verifyOtpResult":{"verificationToken":"jwt"}}`,
		VerifyOtpResult{VerificationToken: "jwt"}},
	{"init_otp", "ACTIVITY_TYPE_INIT_OTP_V3",
		submits((*Client).InitOtp, InitOtpParams{OtpType: "OTP_TYPE_EMAIL", Contact: "a@b.c", AppName: "app", OtpLength: ptr(6), Alphanumeric: ptr(false),
			EmailCustomization: &EmailCustomization{LogoURL: "https://l/x.png", TemplateID: "tpl"}, SmsCustomization: &SmsCustomization{Template: "{{.OtpCode}}"},
			UserIdentifier: "h", SendFromEmailAddress: "f@b.c", SendFromEmailSenderName: "S", ReplyToEmailAddress: "r@b.c", ExpirationSeconds: "600"}),
		`{"otpType":"OTP_TYPE_EMAIL","contact":"a@b.c","appName":"app","otpLength":6,"alphanumeric":false,"emailCustomization":{"logoUrl":"https://l/x.png","templateId":"tpl"},"smsCustomization":{"template":"{{.OtpCode}}"},"userIdentifier":"h","sendFromEmailAddress":"f@b.c","sendFromEmailSenderName":"S","replyToEmailAddress":"r@b.c","expirationSeconds":"600"}`,
		`{"initOtpResultV2":{"otpId":"otp-2","otpEncryptionTargetBundle":"tb"}}`,
		InitOtpResult{OtpID: "otp-2", OtpEncryptionTargetBundle: "tb"}},
	{"delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
		submits((*Client).DeletePrivateKeyTags, DeletePrivateKeyTagsParams{PrivateKeyTagIDs: []string{"t-1"}}),
		`{"privateKeyTagIds":["t-1"]}`,
		`{"deletePrivateKeyTagsResult":{"privateKeyTagIds":["t-1"],"privateKeyIds":["k-1","k-2"]}}`,
		DeletePrivateKeyTagsResult{PrivateKeyTagIDs: []string{"t-1"}, PrivateKeyIDs: []string{"k-1", "k-2"}}},
	{"delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
		submits((*Client).DeleteOauthProviders, DeleteOauthProvidersParams{UserID: "u-1", ProviderIDs: []string{"op-1"}}),
		`{"userId":"u-1","providerIds":["op-1"]}`,
		`{"deleteOauthProvidersResult":{"providerIds":["op-1"]}}`,
		ProviderIDsResult{ProviderIDs: []string{"op-1"}}},
	{"sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
		submits((*Client).SignTransaction, SignTransactionParams{SignWith: "k-1", UnsignedTransaction: "02ef", Type: "TRANSACTION_TYPE_ETHEREUM"}),
		`{"signWith":"k-1","unsignedTransaction":"02ef","type":"TRANSACTION_TYPE_ETHEREUM"}`,
		`{"signTransactionResult":{"signedTransaction":"02f0"}}`,
		SignTransactionResult{SignedTransaction: "02f0"}},
	{"update_organization_name", "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
		submits((*Client).UpdateOrganizationName, UpdateOrganizationNameParams{OrganizationName: "Acme Treasury"}),
		`{"organizationName":"Acme Treasury"}`,
		`{"updateOrganizationNameResult":{"organizationId":"org-1","organizationName":"Acme Treasury"}}`,
		UpdateOrganizationNameResult{OrganizationID: "org-1", OrganizationName: "Acme Treasury"}},
	{"update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2",
		submits((*Client).UpdatePolicy, UpdatePolicyParams{PolicyID: "p-1", PolicyName: ptr("renamed"), PolicyEffect: ptr(EffectDeny), PolicyCondition: ptr(""), PolicyNotes: ptr("why")}),
		`{"policyId":"p-1","policyName":"renamed","policyEffect":"EFFECT_DENY","policyCondition":"","policyNotes":"why"}`,
		`{"updatePolicyResultV2":{"policyId":"p-1"}}`,
		PolicyIDResult{PolicyID: "p-1"}},
	{"delete_policy", "ACTIVITY_TYPE_DELETE_POLICY",
		submits((*Client).DeletePolicy, DeletePolicyParams{PolicyID: "p-1"}),
		`{"policyId":"p-1"}`,
		`{"deletePolicyResult":{"policyId":"p-1"}}`,
		PolicyIDResult{PolicyID: "p-1"}},
	{"delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES",
		submits((*Client).DeletePolicies, DeletePoliciesParams{PolicyIDs: []string{"p-1", "p-2"}}),
		`{"policyIds":["p-1","p-2"]}`,
		`{"deletePoliciesResult":{"policyIds":["p-1","p-2"]}}`,
		PolicyIDsResult{PolicyIDs: []string{"p-1", "p-2"}}},
	{"remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
		submits((*Client).RemoveIPAllowlist, RemoveIPAllowlistParams{}),
		`{}`,
		`{"removeIpAllowlistResult":{}}`,
		EmptyResult{}},
	{"create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
		submits((*Client).CreateOauthProviders, CreateOauthProvidersParams{UserID: "u-1", OauthProviders: []OauthProviderParams{
			{ProviderName: "google", OidcToken: "eyJ.tok"},
			{ProviderName: "corp", OidcClaims: &OidcClaims{Iss: "https://idp", Sub: "s", Aud: "a"}},
		}}),
		`{"userId":"u-1","oauthProviders":[{"providerName":"google","oidcToken":"eyJ.tok"},{"providerName":"corp","oidcClaims":{"iss":"https://idp","sub":"s","aud":"a"}}]}`,
		`{"createOauthProvidersResultV2":{"providerIds":["op-1","op-2"]}}`,
		ProviderIDsResult{ProviderIDs: []string{"op-1", "op-2"}}},
	{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
		submits((*Client).CreatePrivateKeyTag, CreatePrivateKeyTagParams{PrivateKeyTagName: "hot"}),
		`{"privateKeyTagName":"hot","privateKeyIds":[]}`,
		`{"createPrivateKeyTagResult":{"privateKeyTagId":"t-1","privateKeyIds":[]}}`,
		CreatePrivateKeyTagResult{PrivateKeyTagID: "t-1", PrivateKeyIDs: []string{}}},
	{"update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
		submits((*Client).UpdatePrivateKeyTag, UpdatePrivateKeyTagParams{PrivateKeyTagID: "t-1", NewPrivateKeyTagName: "cold", AddPrivateKeyIDs: []string{"k-3"}}),
		`{"privateKeyTagId":"t-1","newPrivateKeyTagName":"cold","addPrivateKeyIds":["k-3"],"removePrivateKeyIds":[]}`,
		`{"updatePrivateKeyTagResult":{"privateKeyTagId":"t-1"}}`,
		UpdatePrivateKeyTagResult{PrivateKeyTagID: "t-1"}},
	{"create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
		submits((*Client).CreateWebhookEndpoint, CreateWebhookEndpointParams{URL: "https://hooks.example.com/x", Name: "ops",
			Subscriptions: []WebhookSubscription{{EventType: "ACTIVITY_UPDATES", FiltersJSON: `{"a":1}`, IsActive: ptr(true)}}}),
		`{"url":"https://hooks.example.com/x","name":"ops","subscriptions":[{"eventType":"ACTIVITY_UPDATES","filtersJson":"{\"a\":1}","isActive":true}]}`,
		`{"createWebhookEndpointResult":{"endpointId":"we-1","webhookEndpoint":{"endpointId":"we-1","organizationId":"org-1","url":"https://hooks.example.com/x","name":"ops","isActive":true,"subscriptions":[{"eventType":"ACTIVITY_UPDATES","filtersJson":"{\"a\":1}","isActive":true}]}}}`,
		WebhookEndpointResult{EndpointID: "we-1", WebhookEndpoint: WebhookEndpoint{EndpointID: "we-1", OrganizationID: "org-1", URL: "https://hooks.example.com/x", Name: "ops", IsActive: true,
			Subscriptions: []WebhookSubscription{{EventType: "ACTIVITY_UPDATES", FiltersJSON: `{"a":1}`, IsActive: ptr(true)}}}}},
	{"update_webhook_endpoint", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
		submits((*Client).UpdateWebhookEndpoint, UpdateWebhookEndpointParams{EndpointID: "we-1", IsActive: ptr(false)}),
		`{"endpointId":"we-1","isActive":false}`,
		`{"updateWebhookEndpointResult":{"endpointId":"we-1","webhookEndpoint":{"endpointId":"we-1","organizationId":"org-1","url":"https://h","name":"ops","isActive":false}}}`,
		WebhookEndpointResult{EndpointID: "we-1", WebhookEndpoint: WebhookEndpoint{EndpointID: "we-1", OrganizationID: "org-1", URL: "https://h", Name: "ops"}}},
	{"delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
		submits((*Client).DeleteWebhookEndpoint, DeleteWebhookEndpointParams{EndpointID: "we-1"}),
		`{"endpointId":"we-1"}`,
		`{"deleteWebhookEndpointResult":{"endpointId":"we-1"}}`,
		DeleteWebhookEndpointResult{EndpointID: "we-1"}},
	{"create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
		submits((*Client).CreatePrivateKeys, CreatePrivateKeysParams{PrivateKeys: []PrivateKeyParams{{PrivateKeyName: "k", Curve: "CURVE_SECP256K1", AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}}}}),
		`{"privateKeys":[{"privateKeyName":"k","curve":"CURVE_SECP256K1","privateKeyTags":[],"addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]}`,
		`{"createPrivateKeysResultV2":{"privateKeys":[{"privateKeyId":"k-1","addresses":[{"format":"ADDRESS_FORMAT_ETHEREUM","address":"0x1"}]}]}}`,
		CreatePrivateKeysResult{PrivateKeys: []CreatedPrivateKey{{PrivateKeyID: "k-1", Addresses: []Address{{Format: "ADDRESS_FORMAT_ETHEREUM", Address: "0x1"}}}}}},
	{"approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY",
		votes((*Client).ApproveActivity, VoteParams{Fingerprint: "fp-1"}),
		`{"fingerprint":"fp-1"}`, `{}`, StatusCompleted},
	{"reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY",
		votes((*Client).RejectActivity, VoteParams{Fingerprint: "fp-1"}),
		`{"fingerprint":"fp-1"}`, `{}`, StatusCompleted},
}

// submits makes a case's call of a submit method with p.
func submits[P, R any](method func(*Client, context.Context, P) (*Submitted[R], error), p P) func(context.Context, *Client) (any, error) {
	return func(ctx context.Context, c *Client) (any, error) { return res(method(c, ctx, p)) }
}

// votes makes a case's call of a vote, whose answer is the status of the
// activity voted on.
func votes(method func(*Client, context.Context, VoteParams) (*Activity, error), p VoteParams) func(context.Context, *Client) (any, error) {
	return func(ctx context.Context, c *Client) (any, error) {
		a, err := method(c, ctx, p)
		if err != nil {
			return nil, err
		}
		return a.Status, nil
	}
}

func res[R any](s *Submitted[R], err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if s.Activity == nil || s.Activity.ID != "act-1" {
		return nil, fmt.Errorf("submitted holds activity %+v, want act-1", s.Activity)
	}
	return s.Result, nil
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation %s", want)
	}
	return reflect.DeepEqual(g, w)
}

func TestEverySubmitOperation(t *testing.T) {
	now := time.UnixMilli(1795300000123)
	for _, tt := range submitCases {
		t.Run(tt.op, func(t *testing.T) {
			f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
				writeJSON(w, 200, fmt.Sprintf(`{"activity":{"id":"act-1","organizationId":"org-1","status":"ACTIVITY_STATUS_COMPLETED","type":%q,
 "intent":{},"result":%s,"votes":[],"fingerprint":"fp","canApprove":false,"canReject":false,"createdAt":"2026-11-21T22:00:00Z","updatedAt":"2026-11-21T22:00:00Z"}}`, tt.typ, tt.result))
			}}
			c, _ := newTestClient(t, f)
			c.now = func() time.Time { return now }
			got, err := tt.call(t.Context(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("result = %#v\nwant     %#v", got, tt.want)
			}
			reqs := f.all()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Path != "/public/v1/submit/"+tt.op {
				t.Errorf("path = %s", r.Path)
			}
			var env map[string]json.RawMessage
			if err := json.Unmarshal(r.Body, &env); err != nil {
				t.Fatal(err)
			}
			if len(env) != 4 {
				t.Errorf("envelope has fields %v, want type, timestampMs, organizationId, parameters", keys(env))
			}
			if string(env["type"]) != `"`+tt.typ+`"` || string(env["timestampMs"]) != `"1795300000123"` || string(env["organizationId"]) != `"org-1"` {
				t.Errorf("envelope = %s", r.Body)
			}
			if !jsonEqual(t, env["parameters"], tt.params) {
				t.Errorf("parameters = %s\nwant         %s", env["parameters"], tt.params)
			}
			if !verifyStampIndependently(t, r.Header.Get(StampHeader), r.Body, testKey.PublicKeyHex()) {
				t.Error("stamp does not verify")
			}
		})
	}
}
