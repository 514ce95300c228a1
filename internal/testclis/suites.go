package testclis

// The compatibility suite (tools/compat) runs, on each extra CLI and
// without -race, the provider's own acceptance tests that these select
// (go test -run), then the GitOps kit's test suite and `make demo`. A new
// test in one of these families joins it by its name; a test that needs a
// feature some CLI lacks skips itself there (the provider's requireCLI).
const (
	// AcceptanceRun selects every resource's lifecycle (create, read,
	// update, import, drift, destroy), both functions, the write-only
	// attribute, credentials kept out of plan files and state by ephemeral
	// values, the lockout guard and the access review with their warnings,
	// resource identity, and the adopting guide's custody_import_blocks
	// flow as written (the one OpenTofu users take: it has no query).
	AcceptanceRun = `^(TestAcc(AllResources(_.*)?|Policy_.*|IPAllowlist_.*|OauthProvider_.*|OrganizationName_.*|PrivateKeyTag_.*|WebhookEndpoint_.*|EphemeralCredentials_.*|` +
		`PolicyDecisionFunction.*|PolicyDecisionExampleHolds|PolicyChanges.*|LockoutGuard_.*|ImportBlocks_adoptOrganization)|TestLockoutGuardCLI.*|TestAccessReviewCLI_.*)$`
	// KitRun selects the GitOps kit's `terraform test` (or `tofu test`).
	KitRun = `^TestAccGitOpsKit$`
)

// Covers names, for each thing the compatibility suite must cover, a test
// of internal/provider that covers it; AcceptanceRun or KitRun must select
// each (TestCompatSuiteSelectsItsCover).
var Covers = map[string]string{
	"every resource's create, import by id and destroy":  "TestAccAllResources",
	"every resource's identity, and import by it":        "TestAccAllResources_identity",
	"import by the least identity (identity = {})":       "TestAccAllResources_importByIdentity",
	"a lost create's identity, resolved by a refresh":    "TestAccPolicy_lostCreateIdentity",
	"terraform query adopts an organization, in order":   "TestAccAllResources_query",
	"the adopting guide's import-block flow, as written": "TestAccImportBlocks_adoptOrganization",
	"custody_policy's lifecycle":                         "TestAccPolicy_lifecycle",
	"custody_policy's drift":                             "TestAccPolicy_drift",
	"custody_ip_allowlist's lifecycle and drift":         "TestAccIPAllowlist_organization",
	"custody_oauth_provider's lifecycle and drift":       "TestAccOauthProvider_claims",
	"the write-only attribute oidc_token_wo":             "TestAccOauthProvider_writeOnly",
	"custody_organization_name's lifecycle and drift":    "TestAccOrganizationName_lifecycle",
	"custody_private_key_tag's lifecycle":                "TestAccPrivateKeyTag_basic",
	"custody_private_key_tag's drift":                    "TestAccPrivateKeyTag_drift",
	"custody_webhook_endpoint's lifecycle":               "TestAccWebhookEndpoint_basic",
	"custody_webhook_endpoint's drift":                   "TestAccWebhookEndpoint_drift",
	"the function policy_decision":                       "TestAccPolicyDecisionFunctionTable",
	"the function policy_changes":                        "TestAccPolicyChangesFunction",
	"the lockout guard's warnings":                       "TestLockoutGuardCLI",
	"the access review's warnings":                       "TestAccessReviewCLI_widening",
	"the GitOps kit's terraform test and tofu test":      "TestAccGitOpsKit",
	"ephemeral credentials kept out of plan and state":   "TestAccEphemeralCredentials_outOfPlanAndState",
	"plain variables reach the saved plan (control)":     "TestAccEphemeralCredentials_plainVariablesInPlan",
}
