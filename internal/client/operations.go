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

// Activity types the client never submits, which configurations name in
// policies and controls (the GitOps kit's "key export denied").
const (
	ActivityTypeExportPrivateKey    = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"
	ActivityTypeExportWallet        = "ACTIVITY_TYPE_EXPORT_WALLET"
	ActivityTypeExportWalletAccount = "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT"
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

// SecretField is a member of intents or results that carries a secret or
// key material, with the definitions of the service's API reference
// (swagger) that name it.
type SecretField struct {
	Name  string
	Where string
	// LowEntropy: few enough values to try them all against a hash or a
	// signature of a text that held one (an OTP code, a card's number and
	// CVV), which the activity's fingerprint and its votes' signatures are.
	LowEntropy bool
}

// secretFields is the one list of the members whose values never reach a
// Terraform value (see RedactActivity). A member is known by its name alone,
// wherever it sits, so that a later version of an intent or result (..._V3)
// and a nested item are covered without an edit here. The names are the
// service's camelCase; IsSecretField also knows them in snake_case, which
// a protobuf JSON parser accepts as well (a request body may use it).
//
// Some are ciphertexts (bundles encrypted to the service's enclave or to
// the client's key): they are kept out all the same, since state outlives
// the keys they are encrypted to. importBundle, otpEncryptionTargetBundle
// and enclaveTargetMessages hold only the enclave's signed target key of a
// key, OTP or secret transfer; they are listed with the bundles they serve.
var secretFields = []SecretField{
	{"oidcToken", "v1OauthProviderParamsV2 and v1OauthProviderParams (create_oauth_providers), v1OauthIntent, v1OauthLoginIntent, v1Oauth2AuthenticateResult", false},
	{"otpCode", "v1VerifyOtpIntent, v1OtpAuthIntent", true},
	{"encryptedOtpBundle", "v1VerifyOtpIntentV2 (verify_otp)", false},
	{"otpEncryptionTargetBundle", "v1InitOtpResultV2 (init_otp)", false},
	{"verificationToken", "v1VerifyOtpResult (verify_otp), v1OtpLoginIntent, v1OtpLoginIntentV2, v1CreateSubOrganizationIntentV7, v1CreateSubOrganizationIntentV8, v1UpdateUserEmailIntent, v1UpdateUserPhoneNumberIntent", false},
	{"session", "v1OtpLoginResult, v1OauthLoginResult, v1StampLoginResult, v1CreateReadOnlySessionResult", false},
	{"credentialBundle", "v1OtpAuthResult, v1OauthResult, v1CreateReadWriteSessionResult, v1CreateReadWriteSessionResultV2", false},
	{"exportBundle", "v1ExportPrivateKeyResult, v1ExportWalletResult, v1ExportWalletAccountResult", false},
	{"encryptedBundle", "v1ImportPrivateKeyIntent, v1ImportWalletIntent", false},
	{"importBundle", "v1InitImportPrivateKeyResult, v1InitImportWalletResult", false},
	{"enclaveTargetMessages", "v1InitImportSecretsResult", false},
	{"secretPayload", "v1ImportSecretParams (in v1ImportSecretsIntent)", false},
	{"secretPayloads", "v1ExportSecretsResult", false},
	{"encryptedClientSecret", "v1CreateOauth2CredentialIntent, v1UpdateOauth2CredentialIntent", false},
	{"authCode", "v1Oauth2AuthenticateIntent", false},
	{"codeVerifier", "v1Oauth2AuthenticateIntent", false},
	{"encryptedSecretApiKey", "v1CreateFiatOnRampCredentialIntent, v1UpdateFiatOnRampCredentialIntent", false},
	{"encryptedPrivateApiKey", "v1CreateFiatOnRampCredentialIntent, v1UpdateFiatOnRampCredentialIntent", false},
	{"pivotContainerEncryptedPullSecret", "v1CreateTvcDeploymentIntent", false},
	{"reEncryptedShareHex", "v1QuorumKeyShareApprovalBundle (in v1PostTvcQuorumKeyShareIntent)", false},
	{"ciphertext", "v1SparkClaimLeaf (in v1SparkClaimTransferIntent)", false},
	{"encryptedPackage", "v1SparkEncryptedOperatorPackage (in the Spark transfer, claim and lightning-receive results)", false},
	// The only "number" of the reference's intents and results is a card's.
	{"number", "billingSetPaymentMethodIntent", true},
	{"cvv", "billingSetPaymentMethodIntent", true},
}

// SecretFields lists the members RedactActivity redacts, in the order above.
func SecretFields() []SecretField { return append([]SecretField(nil), secretFields...) }
