package client

// This file is the one table of the service's operations. The client's
// methods, the provider's resources and the emulator's registry all take
// their paths, activity types and record keys from here, so that a version
// bump (ACTIVITY_TYPE_..._V3, say) is one edit.

// ActivityTypePrefix begins every activity type.
const ActivityTypePrefix = "ACTIVITY_TYPE_"

// Operation is one submit endpoint: POST /public/v1/submit/<Name>.
type Operation struct {
	// Name is the path segment after /submit/.
	Name string
	// Type is the only envelope type the endpoint accepts.
	Type string
	// IntentKey and ResultKey are where an activity record of this type
	// holds its parameters and its result. ResultKey is empty for the
	// votes, whose answer is the activity voted on.
	IntentKey, ResultKey string
	// EmptyResult marks a result that is an empty object, which the
	// service may leave out of the record altogether.
	EmptyResult bool
}

// The submit operations.
var (
	OpApproveActivity = Operation{"approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", "approveActivityIntent", "", false}
	OpRejectActivity  = Operation{"reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY", "rejectActivityIntent", "", false}

	OpCreatePolicies = Operation{"create_policies", "ACTIVITY_TYPE_CREATE_POLICIES", "createPoliciesIntent", "createPoliciesResult", false}
	OpUpdatePolicy   = Operation{"update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", "updatePolicyIntentV2", "updatePolicyResultV2", false}
	OpDeletePolicy   = Operation{"delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", "deletePolicyIntent", "deletePolicyResult", false}
	OpDeletePolicies = Operation{"delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", "deletePoliciesIntent", "deletePoliciesResult", false}

	OpSetIPAllowlist    = Operation{"set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST", "setIpAllowlistIntent", "setIpAllowlistResult", true}
	OpRemoveIPAllowlist = Operation{"remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", "removeIpAllowlistIntent", "removeIpAllowlistResult", true}

	OpCreateOauthProviders = Operation{"create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", "createOauthProvidersIntentV2", "createOauthProvidersResultV2", false}
	OpDeleteOauthProviders = Operation{"delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", "deleteOauthProvidersIntent", "deleteOauthProvidersResult", false}

	OpUpdateOrganizationName = Operation{"update_organization_name", "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "updateOrganizationNameIntent", "updateOrganizationNameResult", false}

	OpCreatePrivateKeys    = Operation{"create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", "createPrivateKeysIntentV2", "createPrivateKeysResultV2", false}
	OpCreatePrivateKeyTag  = Operation{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", "createPrivateKeyTagIntent", "createPrivateKeyTagResult", false}
	OpUpdatePrivateKeyTag  = Operation{"update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", "updatePrivateKeyTagIntent", "updatePrivateKeyTagResult", false}
	OpDeletePrivateKeyTags = Operation{"delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", "deletePrivateKeyTagsIntent", "deletePrivateKeyTagsResult", false}

	OpSignRawPayload  = Operation{"sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "signRawPayloadIntentV2", "signRawPayloadResult", false}
	OpSignTransaction = Operation{"sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "signTransactionIntentV2", "signTransactionResult", false}

	OpInitOtp     = Operation{"init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", "initOtpIntentV3", "initOtpResultV2", false}
	OpVerifyOtp   = Operation{"verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", "verifyOtpIntentV2", "verifyOtpResult", false}
	OpRecoverUser = Operation{"recover_user", "ACTIVITY_TYPE_RECOVER_USER", "recoverUserIntent", "recoverUserResult", false}

	OpCreateWebhookEndpoint = Operation{"create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", "createWebhookEndpointIntent", "createWebhookEndpointResult", false}
	OpUpdateWebhookEndpoint = Operation{"update_webhook_endpoint", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", "updateWebhookEndpointIntent", "updateWebhookEndpointResult", false}
	OpDeleteWebhookEndpoint = Operation{"delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", "deleteWebhookEndpointIntent", "deleteWebhookEndpointResult", false}
)

// Query is one query endpoint: POST /public/v1/query/<Query>.
type Query string

// The query operations. They are untyped so that messages can name them
// as plain strings.
const (
	QueryWhoami                   = "whoami"
	QueryGetOrganizationConfigs   = "get_organization_configs"
	QueryGetActivity              = "get_activity"
	QueryListActivities           = "list_activities"
	QueryGetPolicyEvaluations     = "get_policy_evaluations"
	QueryGetPolicy                = "get_policy"
	QueryListPolicies             = "list_policies"
	QueryGetIPAllowlist           = "get_ip_allowlist"
	QueryGetOauthProviders        = "get_oauth_providers"
	QueryListPrivateKeys          = "list_private_keys"
	QueryListPrivateKeyTags       = "list_private_key_tags"
	QueryListWebhookEndpoints     = "list_webhook_endpoints"
	QueryGetMfaPolicy             = "get_mfa_policy"
	QueryGetMfaPolicies           = "get_mfa_policies"
	QueryListSupportedAssets      = "list_supported_assets"
	QueryListEarnEnabledVaults    = "list_earn_enabled_vaults"
	QueryListEarnPositions        = "list_earn_positions"
	QueryGetAppStatus             = "get_app_status"
	QueryGetSendTransactionStatus = "get_send_transaction_status"
)

// Operations lists every submit operation, for a registry that serves them
// all and for tests that check the table.
func Operations() []Operation {
	return []Operation{
		OpApproveActivity, OpRejectActivity,
		OpCreatePolicies, OpUpdatePolicy, OpDeletePolicy, OpDeletePolicies,
		OpSetIPAllowlist, OpRemoveIPAllowlist,
		OpCreateOauthProviders, OpDeleteOauthProviders,
		OpUpdateOrganizationName,
		OpCreatePrivateKeys, OpCreatePrivateKeyTag, OpUpdatePrivateKeyTag, OpDeletePrivateKeyTags,
		OpSignRawPayload, OpSignTransaction,
		OpInitOtp, OpVerifyOtp, OpRecoverUser,
		OpCreateWebhookEndpoint, OpUpdateWebhookEndpoint, OpDeleteWebhookEndpoint,
	}
}

// Queries lists every query operation.
func Queries() []Query {
	return []Query{
		QueryWhoami, QueryGetOrganizationConfigs, QueryGetActivity, QueryListActivities, QueryGetPolicyEvaluations,
		QueryGetPolicy, QueryListPolicies, QueryGetIPAllowlist, QueryGetOauthProviders,
		QueryListPrivateKeys, QueryListPrivateKeyTags, QueryListWebhookEndpoints,
		QueryGetMfaPolicy, QueryGetMfaPolicies, QueryListSupportedAssets,
		QueryListEarnEnabledVaults, QueryListEarnPositions, QueryGetAppStatus, QueryGetSendTransactionStatus,
	}
}
