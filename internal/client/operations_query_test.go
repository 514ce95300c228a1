package client

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// queryCase is one query endpoint.
type queryCase struct {
	op     string
	call   func(ctx context.Context, c *Client) (any, error)
	body   string // the request body the service must receive
	answer string
	want   any
}

// queries makes a case's call of a query method with req.
func queries[Q, R any](method func(*Client, context.Context, Q) (*R, error), req Q) func(context.Context, *Client) (any, error) {
	return func(ctx context.Context, c *Client) (any, error) { return method(c, ctx, req) }
}

var queryCases = []queryCase{
	{"get_activity",
		func(ctx context.Context, c *Client) (any, error) {
			a, err := c.GetActivity(ctx, GetActivityRequest{ActivityID: "act-1"})
			if err != nil {
				return nil, err
			}
			return []any{a.ID, a.Votes[0].User.UserName, a.Votes[0].Selection, a.AppProofs[0].Scheme, a.Failure.Message, a.CreatedAt.Seconds}, nil
		},
		`{"organizationId":"org-1","activityId":"act-1"}`,
		`{"activity":{"id":"act-1","organizationId":"org-1","status":"ACTIVITY_STATUS_FAILED","type":"ACTIVITY_TYPE_CREATE_POLICIES","intent":{"createPoliciesIntent":{"policies":[]}},"result":{},
 "votes":[{"id":"v-1","userId":"u-1","user":{"userId":"u-1","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"02aa","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"ak","apiKeyName":"ci","createdAt":` + ts + `,"updatedAt":` + ts + `}],"userTags":[],"oauthProviders":[],"mfaPolicies":[],"createdAt":` + ts + `,"updatedAt":` + ts + `},
 "activityId":"act-1","selection":"VOTE_SELECTION_APPROVED","message":"m","publicKey":"02aa","signature":"ss","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":` + ts + `}],
 "appProofs":[{"scheme":"SIGNATURE_SCHEME_EPHEMERAL_KEY_P256","publicKey":"p","proofPayload":"pp","signature":"s"}],
 "fingerprint":"fp","canApprove":false,"canReject":false,"createdAt":` + ts + `,"updatedAt":` + ts + `,"failure":{"code":3,"message":"bad condition","details":[]}}}`,
		[]any{"act-1", "root", "VOTE_SELECTION_APPROVED", "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256", "bad condition", "1795300000"}},
	{"list_activities",
		queries((*Client).ListActivities, ListActivitiesRequest{FilterByStatus: []string{StatusConsensusNeeded}, FilterByType: []string{"ACTIVITY_TYPE_CREATE_POLICIES"},
			PaginationOptions: &Pagination{Limit: "10", After: "act-0"}}),
		`{"organizationId":"org-1","filterByStatus":["ACTIVITY_STATUS_CONSENSUS_NEEDED"],"paginationOptions":{"limit":"10","after":"act-0"},"filterByType":["ACTIVITY_TYPE_CREATE_POLICIES"]}`,
		`{"activities":[]}`,
		&ListActivitiesResponse{Activities: []Activity{}}},
	{"get_policy_evaluations",
		queries((*Client).GetPolicyEvaluations, GetPolicyEvaluationsRequest{ActivityID: "act-1"}),
		`{"organizationId":"org-1","activityId":"act-1"}`,
		`{"policyEvaluations":[{"id":"pe-1","activityId":"act-1","organizationId":"org-1","voteId":"v-1","policyEvaluations":[{"policyId":"p-1","outcome":"OUTCOME_ALLOW"}],"createdAt":` + ts + `}]}`,
		&GetPolicyEvaluationsResponse{PolicyEvaluations: []PolicyEvaluationRecord{{ID: "pe-1", ActivityID: "act-1", OrganizationID: "org-1", VoteID: "v-1",
			PolicyEvaluations: []PolicyEvaluation{{PolicyID: "p-1", Outcome: "OUTCOME_ALLOW"}}, CreatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}}}}},
	{"get_mfa_policy",
		queries((*Client).GetMfaPolicy, GetMfaPolicyRequest{UserID: "u-1", MfaPolicyID: "m-1"}),
		`{"organizationId":"org-1","userId":"u-1","mfaPolicyId":"m-1"}`,
		`{"mfaPolicy":{"mfaPolicyId":"m-1","mfaPolicyName":"step-up","condition":"true","requiredAuthenticationMethods":[{"any":[{"type":"AUTHENTICATION_TYPE_PASSKEY"},{"type":"AUTHENTICATION_TYPE_SESSION","id":"sp-1"}]}],"order":2,"notes":"n","createdAt":` + ts + `,"updatedAt":` + ts + `}}`,
		&GetMfaPolicyResponse{MfaPolicy: MfaPolicy{MfaPolicyID: "m-1", MfaPolicyName: "step-up", Condition: "true", Order: 2, Notes: "n",
			RequiredAuthenticationMethods: []RequiredAuthenticationMethod{{Any: []AuthenticationMethod{{Type: "AUTHENTICATION_TYPE_PASSKEY"}, {Type: "AUTHENTICATION_TYPE_SESSION", ID: "sp-1"}}}},
			CreatedAt:                     Timestamp{Seconds: "1795300000", Nanos: "0"}, UpdatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}}}},
	{"get_mfa_policies",
		queries((*Client).GetMfaPolicies, GetMfaPoliciesRequest{UserID: "u-1"}),
		`{"organizationId":"org-1","userId":"u-1"}`,
		`{"mfaPolicies":[]}`,
		&GetMfaPoliciesResponse{MfaPolicies: []MfaPolicy{}}},
	{"get_oauth_providers",
		queries((*Client).GetOauthProviders, GetOauthProvidersRequest{UserID: "u-1"}),
		`{"organizationId":"org-1","userId":"u-1"}`,
		`{"oauthProviders":[{"providerId":"op-1","providerName":"google","issuer":"https://accounts.google.com","audience":"app","subject":"123","createdAt":` + ts + `,"updatedAt":` + ts + `}]}`,
		&GetOauthProvidersResponse{OauthProviders: []OauthProvider{{ProviderID: "op-1", ProviderName: "google", Issuer: "https://accounts.google.com", Audience: "app", Subject: "123",
			CreatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}, UpdatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}}}}},
	{"get_app_status",
		queries((*Client).GetAppStatus, GetAppStatusRequest{AppID: "app-1"}),
		`{"organizationId":"org-1","appId":"app-1"}`,
		`{"appStatus":{"appId":"app-1","deployments":[{"deploymentId":"d-1","readyReplicas":2,"desiredReplicas":3,"lastUpdatedTime":` + ts + `}],"targetedDeploymentId":"d-1"}}`,
		&GetAppStatusResponse{AppStatus: AppStatus{AppID: "app-1", TargetedDeploymentID: "d-1",
			Deployments: []DeploymentStatus{{DeploymentID: "d-1", ReadyReplicas: 2, DesiredReplicas: 3, LastUpdatedTime: Timestamp{Seconds: "1795300000", Nanos: "0"}}}}}},
	{"list_supported_assets",
		queries((*Client).ListSupportedAssets, ListSupportedAssetsRequest{Caip2: "eip155:1"}),
		`{"organizationId":"org-1","caip2":"eip155:1"}`,
		`{"assets":[{"caip19":"eip155:1/slip44:60","symbol":"ETH","decimals":18,"logoUrl":"https://l","name":"Ether","stable":false},{"symbol":"X"}]}`,
		&ListSupportedAssetsResponse{Assets: []AssetMetadata{{Caip19: "eip155:1/slip44:60", Symbol: "ETH", Decimals: ptr(18), LogoURL: "https://l", Name: "Ether", Stable: ptr(false)}, {Symbol: "X"}}}},
	{"get_send_transaction_status",
		queries((*Client).GetSendTransactionStatus, GetSendTransactionStatusRequest{SendTransactionStatusID: "st-1"}),
		`{"organizationId":"org-1","sendTransactionStatusId":"st-1"}`,
		`{"txStatus":"FAILED","eth":{"txHash":"0xh"},"txError":"reverted","error":{"message":"m","revertChain":[{"address":"0xc","errorType":"native","displayMessage":"d","native":{"nativeType":"panic","panicCode":"17"}},{"errorType":"custom","custom":{"errorName":"E","paramsJson":"{}"}},{"errorType":"unknown","unknown":{"selector":"0x12345678","data":"0x"}}],
 "solana":{"source":"simulation","rpcCode":-32002,"rpcMessage":"r","transactionErrorJson":"{}","logs":["l1"],"unitsConsumed":"5","innerInstructionsJson":"[]"},"eth":{"revertChain":[]}}}`,
		&GetSendTransactionStatusResponse{TxStatus: "FAILED", Eth: &EthSendTransactionStatus{TxHash: "0xh"}, TxError: "reverted", Error: &TxError{Message: "m",
			RevertChain: []RevertChainEntry{{Address: "0xc", ErrorType: "native", DisplayMessage: "d", Native: &NativeRevertError{NativeType: "panic", PanicCode: "17"}},
				{ErrorType: "custom", Custom: &CustomRevertError{ErrorName: "E", ParamsJSON: "{}"}}, {ErrorType: "unknown", Unknown: &UnknownRevertError{Selector: "0x12345678", Data: "0x"}}},
			Solana: &SolanaFailureDetails{Source: "simulation", RPCCode: ptr(-32002), RPCMessage: "r", TransactionErrorJSON: "{}", Logs: []string{"l1"}, UnitsConsumed: "5", InnerInstructionsJSON: "[]"},
			Eth:    &EthFailureDetails{RevertChain: []RevertChainEntry{}}}}},
	{"list_earn_enabled_vaults",
		queries((*Client).ListEarnEnabledVaults, ListEarnEnabledVaultsRequest{Provider: EarnProviderProtocolA, Caip19: "eip155:1/erc20:0xa"}),
		`{"organizationId":"org-1","provider":"EARN_PROVIDER_PROTOCOL_A","caip19":"eip155:1/erc20:0xa"}`,
		`{"enabledVaults":[{"vaultAddress":"0xv","wrapperAddress":"0xw","provider":"EARN_PROVIDER_PROTOCOL_A","caip19":"eip155:1/erc20:0xa","apyPct":"0.05","totalDeposited":"100","display":{"usd":"1.00","crypto":"1"},"netApyPct":"0.04","clientFeeBps":"50","depositsDisabled":true,"name":"V","curator":"c1,c2","claimableClientFee":"3","claimableClientFeeDisplay":{"usd":"0.03"},"clientFeeWallet":"0xf"}]}`,
		&ListEarnEnabledVaultsResponse{EnabledVaults: []EarnEnabledVault{{EarnVaultRef: EarnVaultRef{VaultAddress: "0xv", WrapperAddress: "0xw", Provider: EarnProviderProtocolA, Caip19: "eip155:1/erc20:0xa", DepositsDisabled: ptr(true)}, ApyPct: "0.05", TotalDeposited: "100",
			Display: &EarnValueDisplay{USD: "1.00", Crypto: "1"}, NetApyPct: "0.04", ClientFeeBps: "50", Name: "V", Curator: "c1,c2", ClaimableClientFee: "3",
			ClaimableClientFeeDisplay: &EarnValueDisplay{USD: "0.03"}, ClientFeeWallet: "0xf"}}}},
	{"list_earn_positions",
		queries((*Client).ListEarnPositions, ListEarnPositionsRequest{WalletAddress: "0xwal"}),
		`{"organizationId":"org-1","walletAddress":"0xwal"}`,
		`{"positions":[{"vaultAddress":"0xv","wrapperAddress":"0xw","provider":"EARN_PROVIDER_PROTOCOL_B","caip19":"c","currentValue":"5","totalDeposited":"4","totalWithdrawn":"1","display":{"currentValueUsd":"a","totalDepositedUsd":"b","totalWithdrawnUsd":"c","currentValueCrypto":"d","totalDepositedCrypto":"e","totalWithdrawnCrypto":"f"},"depositsDisabled":false}]}`,
		&ListEarnPositionsResponse{Positions: []EarnPosition{{EarnVaultRef: EarnVaultRef{VaultAddress: "0xv", WrapperAddress: "0xw", Provider: EarnProviderProtocolB, Caip19: "c", DepositsDisabled: ptr(false)}, CurrentValue: "5", TotalDeposited: "4", TotalWithdrawn: "1",
			Display: &EarnPositionDisplay{CurrentValueUSD: "a", TotalDepositedUSD: "b", TotalWithdrawnUSD: "c", CurrentValueCrypto: "d", TotalDepositedCrypto: "e", TotalWithdrawnCrypto: "f"}}}}},
	{"get_policy",
		queries((*Client).GetPolicy, GetPolicyRequest{PolicyID: "p-1"}),
		`{"organizationId":"org-1","policyId":"p-1"}`,
		`{"policy":{"policyId":"p-1","policyName":"n","effect":"EFFECT_ALLOW","createdAt":` + ts + `,"updatedAt":` + ts + `,"notes":"x","consensus":"","condition":"true"}}`,
		&GetPolicyResponse{Policy: Policy{PolicyID: "p-1", PolicyName: "n", Effect: EffectAllow, Notes: "x", Condition: "true",
			CreatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}, UpdatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}}}},
	{"list_policies",
		queries((*Client).ListPolicies, ListPoliciesRequest{}),
		`{"organizationId":"org-1"}`,
		`{"policies":[{"policyId":"p-1","policyName":"n","effect":"EFFECT_DENY","createdAt":` + ts + `,"updatedAt":` + ts + `,"notes":"","consensus":"c","condition":"","time":"t"}]}`,
		&ListPoliciesResponse{Policies: []Policy{{PolicyID: "p-1", PolicyName: "n", Effect: EffectDeny, Consensus: "c", Time: "t",
			CreatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}, UpdatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}}}}},
	{"get_ip_allowlist",
		queries((*Client).GetIPAllowlist, GetIPAllowlistRequest{PublicKey: "02bb"}),
		`{"organizationId":"org-1","publicKey":"02bb"}`,
		`{"allowlist":{"organizationId":"org-1","rules":[{"cidr":"10.0.0.0/8","label":"vpn","createdAt":"2026-11-21T22:00:00Z"}],"publicKey":"02bb","onEvaluationError":"DENY"}}`,
		&GetIPAllowlistResponse{Allowlist: IPAllowlist{OrganizationID: "org-1", PublicKey: "02bb", OnEvaluationError: "DENY",
			Rules: []IPAllowlistRule{{CIDR: "10.0.0.0/8", Label: "vpn", CreatedAt: "2026-11-21T22:00:00Z"}}}}},
	{"list_private_key_tags",
		queries((*Client).ListPrivateKeyTags, ListPrivateKeyTagsRequest{}),
		`{"organizationId":"org-1"}`,
		`{"privateKeyTags":[{"tagId":"t-1","tagName":"hot","tagType":"TAG_TYPE_PRIVATE_KEY","createdAt":` + ts + `,"updatedAt":` + ts + `}]}`,
		&ListPrivateKeyTagsResponse{PrivateKeyTags: []Tag{{TagID: "t-1", TagName: "hot", TagType: "TAG_TYPE_PRIVATE_KEY",
			CreatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}, UpdatedAt: Timestamp{Seconds: "1795300000", Nanos: "0"}}}}},
	{"whoami",
		queries((*Client).Whoami, WhoamiRequest{}),
		`{"organizationId":"org-1"}`,
		`{"organizationId":"org-1","organizationName":"Acme","userId":"u-1","username":"root"}`,
		&WhoamiResponse{OrganizationID: "org-1", OrganizationName: "Acme", UserID: "u-1", Username: "root"}},
	{"list_webhook_endpoints",
		queries((*Client).ListWebhookEndpoints, ListWebhookEndpointsRequest{}),
		`{"organizationId":"org-1"}`,
		`{"webhookEndpoints":[{"endpointId":"we-1","organizationId":"org-1","url":"https://h","name":"n","isActive":true}]}`,
		&ListWebhookEndpointsResponse{WebhookEndpoints: []WebhookEndpoint{{EndpointID: "we-1", OrganizationID: "org-1", URL: "https://h", Name: "n", IsActive: true}}}},
}

func TestEveryQueryOperation(t *testing.T) {
	for _, tt := range queryCases {
		t.Run(tt.op, func(t *testing.T) {
			f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 200, tt.answer) }}
			c, _ := newTestClient(t, f)
			got, err := tt.call(t.Context(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			r := f.all()[0]
			if r.Path != "/public/v1/query/"+tt.op {
				t.Errorf("path = %s", r.Path)
			}
			if !jsonEqual(t, r.Body, tt.body) {
				t.Errorf("body = %s\nwant   %s", r.Body, tt.body)
			}
			if strings.Contains(string(r.Body), "timestampMs") || strings.Contains(string(r.Body), `"type"`) {
				t.Errorf("a query carries envelope fields: %s", r.Body)
			}
			if !verifyStampIndependently(t, r.Header.Get(StampHeader), r.Body, testKey.PublicKeyHex()) {
				t.Error("stamp does not verify")
			}
		})
	}
}

func TestWebhookKeySetIsFetchedUnstamped(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		w.Header().Set("Cache-Control", "public, max-age=86400, s-maxage=86400, stale-if-error=604800")
		writeJSON(w, 200, `{"keys":[{"kid":"k1","kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","service_signature_algorithm":"ed25519","service_signature_version":"v1"}]}`)
	}}
	c, _ := newTestClient(t, f)
	set, err := c.GetWebhookKeySet(t.Context())
	if err != nil || len(set.Keys) != 1 || set.Keys[0].Kid != "k1" {
		t.Fatalf("GetWebhookKeySet = %+v, %v", set, err)
	}
	if _, err := c.GetWebhookKeySet(t.Context()); err != nil {
		t.Fatal(err)
	}
	reqs := f.all()
	if len(reqs) != 1 {
		t.Errorf("%d fetches, want 1 (cached)", len(reqs))
	}
	if reqs[0].Path != WebhookKeySetPath || reqs[0].Header.Get(StampHeader) != "" {
		t.Errorf("fetched %s with stamp %q", reqs[0].Path, reqs[0].Header.Get(StampHeader))
	}
}
