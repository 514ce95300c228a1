package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ provider.ProviderWithFunctions     = &CustodyProvider{}
	_ provider.ProviderWithListResources = &CustodyProvider{}
)

// DefaultApprovalTimeout bounds how long a create, update or delete waits
// for an activity that needs consensus, unless the resource's timeouts say
// otherwise.
const DefaultApprovalTimeout = 20 * time.Minute

// CustodyProvider carries the build version, reported in the User-Agent,
// and the process's request budget.
type CustodyProvider struct {
	version string
	budget  processBudget
}

// New returns a factory because providerserver and the acceptance tests each
// need a fresh provider per Terraform run.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &CustodyProvider{version: version}
	}
}

// providerModel is the provider block.
type providerModel struct {
	BaseURL         types.String         `tfsdk:"base_url"`
	OrganizationID  types.String         `tfsdk:"organization_id"`
	APIPublicKey    types.String         `tfsdk:"api_public_key"`
	APIPrivateKey   types.String         `tfsdk:"api_private_key"`
	MaxRetries      types.Int64          `tfsdk:"max_retries"`
	ApprovalTimeout timetypes.GoDuration `tfsdk:"approval_timeout"`
	// MaxRequestsPerSecond is read by parseMaxRequestsPerSecond.
	MaxRequestsPerSecond types.Float64 `tfsdk:"max_requests_per_second"`
	// SkipCredentialsValidation turns off the whoami that checks the
	// credentials when the provider is configured.
	SkipCredentialsValidation types.Bool `tfsdk:"skip_credentials_validation"`
	// SkipPolicyLockoutCheck turns the lockout guard's error into a warning.
	SkipPolicyLockoutCheck types.Bool `tfsdk:"skip_policy_lockout_check"`
	// Batching is read by batchingSettings.
	Batching types.Object `tfsdk:"batching"`
	// Controls is read by readControls.
	Controls types.List `tfsdk:"controls"`
	// NeverApplyingDeny is read by readNeverApplyingDeny.
	NeverApplyingDeny types.String `tfsdk:"never_applying_deny"`
	// Replay is read by readReplay.
	Replay types.Object `tfsdk:"replay"`
}

func (p *CustodyProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "custody"
	resp.Version = p.version
}

func (p *CustodyProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages the configuration of an organization in the custody service " +
			"(wallets and keys): policies, IP allowlists, OAuth providers, private key tags, " +
			"the organization name and webhook endpoints. Every request is stamped with an API key.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				Optional:   true,
				Validators: []validator.String{validBaseURL()},
				MarkdownDescription: "Address of the service, e.g. `https://api.example.com`. Plain `http` is accepted only for a " +
					"loopback host (the local emulator). Falls back to `CUSTODY_BASE_URL`.",
			},
			"organization_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The organization every request acts on. Falls back to `CUSTODY_ORGANIZATION_ID`.",
			},
			"api_public_key": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The API key's public key: a compressed P-256 point in hex (66 characters). Falls back to `CUSTODY_API_PUBLIC_KEY`.",
			},
			"api_private_key": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "The API key's private key: a 32-byte P-256 scalar in hex (64 characters). Sensitive; never logged. " +
					"Prefer `CUSTODY_API_PRIVATE_KEY` to writing it in configuration.",
			},
			"max_retries": schema.Int64Attribute{
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, maxRetriesLimit)},
				MarkdownDescription: "How many times a request is retried after a 429, any 5xx, a dropped or reset connection " +
					"or a timeout (0 to 20, default 5), waiting as `Retry-After` asks or else an exponential backoff with jitter. " +
					"Retries resend the identical body, which the service answers with the same activity, so a retried change " +
					"is never made twice. Falls back to `CUSTODY_MAX_RETRIES`.",
			},
			"approval_timeout": schema.StringAttribute{
				Optional:   true,
				CustomType: timetypes.GoDurationType{},
				Validators: []validator.String{positiveDuration("approval_timeout")},
				MarkdownDescription: "How long a create, update or delete waits for an activity that needs consensus (approvals by " +
					"other users) when the resource sets no `timeouts`; a Go duration such as `30m` (default `20m`). " +
					"Falls back to `CUSTODY_APPROVAL_TIMEOUT`.",
			},
			"batching":            batchingAttribute(),
			"controls":            controlsAttribute(),
			"never_applying_deny": neverApplyingDenyAttribute(),
			"replay":              replayAttribute(),
			"skip_credentials_validation": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Skip the check of the credentials (default `false`). Unless skipped, every Terraform command " +
					"that configures the provider asks the service once who the API key is (`whoami`) for `organization_id`, " +
					"beside its first request, so that an unknown key, a key of another organization, a wrong organization id " +
					"or base URL, or an unreachable service fails `terraform plan` instead of the apply after it. Set it for a " +
					"plan that must run without the service, such as a plan of new objects only. Falls back to " +
					"`CUSTODY_SKIP_CREDENTIALS_VALIDATION` (`true` or `false`).",
			},
			"skip_policy_lockout_check": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Let a plan or an apply go on, with a warning, when its policy changes would lock Terraform out " +
					"(default `false`: the plan fails, or at apply the policy delete is refused before it is submitted). When a plan " +
					"creates, updates or deletes `custody_policy` resources, the provider decides its own user (the credentials " +
					"check's `whoami`), acting alone, on `" + client.OpCreatePolicies.Type + "`, `" + client.OpUpdatePolicy.Type +
					"`, `" + client.OpDeletePolicy.Type + "` and `" + client.OpDeletePolicies.Type + "` in every state an apply " +
					"of the planned changes can pass through or stop in, whatever the order (each changed policy in whichever " +
					"version allows less); if a policy allowed it before and none would then, the plan fails on the resource whose " +
					"change tips it, since from then on only the root quorum could change policies. During the apply, a policy " +
					"delete the plan could not see (a replacement) is checked the same way before it is submitted. Set it when " +
					"that is intended. The check needs the credentials check, so it is off with `skip_credentials_validation`. " +
					"Falls back to `CUSTODY_SKIP_POLICY_LOCKOUT_CHECK` (`true` or `false`).",
			},
			"max_requests_per_second": maxRequestsPerSecondAttribute(),
		},
	}
}

func (p *CustodyProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	// Which build runs, once per command, for bug reports and for a
	// pipeline that checks what it installed.
	tflog.Info(ctx, "terraform-provider-custody "+p.version, map[string]any{"version": p.version, "terraform_version": req.TerraformVersion})
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	values, keySetOnly := resolveSettings(cfg.settings(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	retries, why := parseMaxRetries(values["max_retries"])
	if why != "" {
		resp.Diagnostics.AddAttributeError(path.Root("max_retries"), "Invalid max_retries", why)
		return
	}
	approval, why := parseApprovalTimeout(values["approval_timeout"])
	if why != "" {
		resp.Diagnostics.AddAttributeError(path.Root("approval_timeout"), "Invalid approval_timeout", why)
		return
	}
	perSecond, why := parseMaxRequestsPerSecond(values["max_requests_per_second"])
	if why != "" {
		resp.Diagnostics.AddAttributeError(path.Root("max_requests_per_second"), "Invalid max_requests_per_second", why)
		return
	}
	skipCheck, why := parseBoolSetting("skip_credentials_validation", values["skip_credentials_validation"])
	if why != "" {
		resp.Diagnostics.AddAttributeError(path.Root("skip_credentials_validation"), "Invalid skip_credentials_validation", why)
		return
	}
	skipLockout, why := parseBoolSetting("skip_policy_lockout_check", values["skip_policy_lockout_check"])
	if why != "" {
		resp.Diagnostics.AddAttributeError(path.Root("skip_policy_lockout_check"), "Invalid skip_policy_lockout_check", why)
		return
	}
	batches := batchingSettings(ctx, cfg.Batching, &resp.Diagnostics)
	controls := readControls(ctx, cfg.Controls, &resp.Diagnostics)
	replay := readReplay(ctx, cfg.Replay, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if keySetOnly {
		// The webhook key set needs no credentials, so a provider with only
		// a base URL can still serve custody_webhook_verification_keys;
		// everything else reports the missing credentials when used.
		data, err := newKeySetOnlyData(values["base_url"])
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Invalid provider configuration", err.Error())
			return
		}
		resp.ResourceData, resp.DataSourceData, resp.ListResourceData = data, data, data
		return
	}
	budget, err := p.budget.forRate(perSecond)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("max_requests_per_second"), "Invalid max_requests_per_second", err.Error())
		return
	}
	privateKey := values["api_private_key"]
	c, err := client.New(client.Config{
		BaseURL:        values["base_url"],
		OrganizationID: values["organization_id"],
		APIPublicKey:   values["api_public_key"],
		APIPrivateKey:  privateKey,
		Retries:        retries,
		Budget:         budget,
		UserAgent:      fmt.Sprintf("terraform-provider-custody/%s (+terraform %s)", p.version, req.TerraformVersion),
		// An apply that timed out leaves its activity waiting for
		// approval; the next apply must adopt it, not act twice.
		AdoptPending: true,
		// A wait for approvals lasts as long as the resource's timeout
		// (its context) allows, less client.ApprovalMargin.
		ApprovalWait: client.ApprovalWaitUntilDeadline,
		// A wrong key, organization or address must fail the plan, not
		// the apply after it; the check runs beside the first request.
		CheckIdentity: !skipCheck,
		Log: func(ctx context.Context, msg string, fields ...map[string]any) {
			// Nothing the client logs carries the key, but a mask costs
			// nothing and guards against a future message that does.
			tflog.Debug(tflog.MaskLogStrings(ctx, privateKey), msg, fields...)
		},
		Info: func(ctx context.Context, msg string, fields ...map[string]any) {
			tflog.Info(tflog.MaskLogStrings(ctx, privateKey), msg, fields...)
		},
	})
	if err != nil {
		if attr := configErrorAttr(err); attr != "" {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Invalid provider configuration", err.Error()+" "+settingSource(attr))
		} else {
			resp.Diagnostics.AddError("Invalid provider configuration", err.Error())
		}
		return
	}
	ctx = tflog.SetField(ctx, "custody_base_url", values["base_url"])
	ctx = tflog.SetField(ctx, "custody_organization_id", values["organization_id"])
	tflog.Debug(ctx, "configured custody client")
	data := newProviderData(c, approval)
	// The command's first reads go out now, beside the check below, so
	// that the check's round trip is the command's only fixed one.
	data.prefetch(ctx)
	if !skipCheck {
		// The check runs here, before any resource, so that a wrong key,
		// organization or address is one error on the provider's
		// configuration, not one per object (as the AWS provider checks
		// its credentials). It costs the command one round trip.
		who, err := c.Identity(ctx)
		if err != nil {
			addAPIError(&resp.Diagnostics, "", "configuring the provider", "", err)
			return
		}
		tflog.Info(ctx, "custody credentials verified", map[string]any{"user_id": who.UserID, "username": who.Username,
			"organization_id": who.OrganizationID, "organization_name": who.OrganizationName})
	} else {
		tflog.Info(ctx, "skipping the check of the custody credentials (skip_credentials_validation)")
	}
	if batches != nil {
		data.runner.Batches = submit.NewBatcher(*batches)
	}
	data.controls = controls
	data.replay = replay
	data.neverApplyingDenyWarns = cfg.NeverApplyingDeny.ValueString() == onNotProvedWarning
	if !skipCheck && lockoutGuardEnabled {
		data.guard = lockout.New(data, skipLockout)
		data.runner.Alone = data.guard // an operation may go alone where the guard is sure it needs no approval
	}
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ListResourceData = data
}

func (p *CustodyProvider) Resources(_ context.Context) []func() resource.Resource {
	return resourceFactories
}

func (p *CustodyProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return dataSourceFactories
}

// ListResources lists the list resources (Terraform >= 1.14), for
// `terraform query`.
func (p *CustodyProvider) ListResources(_ context.Context) []func() list.ListResource {
	return listResourceFactories
}

// Functions lists the provider-defined functions (Terraform >= 1.8). They
// are pure: Terraform calls them without configuring the provider.
func (p *CustodyProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{NewPolicyChangesFunction, NewPolicyDecisionFunction}
}

// dataSourceFactories lists every data source the provider serves.
var dataSourceFactories = []func() datasource.DataSource{
	NewActivityDataSource,
	NewAppStatusDataSource,
	NewEarnPositionsDataSource,
	NewEarnVaultsDataSource,
	NewImportBlocksDataSource,
	NewMfaPoliciesDataSource,
	NewMfaPolicyDataSource,
	NewOauthProvidersDataSource,
	NewOrganizationDataSource,
	NewPoliciesDataSource,
	NewPolicyDataSource,
	NewPolicyEvaluationsDataSource,
	NewPolicyReplayDataSource,
	NewSendTransactionStatusDataSource,
	NewSupportedAssetsDataSource,
	NewWebhookVerificationKeysDataSource,
}

// resourceFactories lists every resource type the provider serves.
var resourceFactories = []func() resource.Resource{
	NewIPAllowlistResource,
	NewOauthProviderResource,
	NewOauthProvidersExclusiveResource,
	NewOrganizationNameResource,
	NewPolicyResource,
	NewPoliciesExclusiveResource,
	NewPrivateKeyTagResource,
	NewPrivateKeyTagsExclusiveResource,
	NewWebhookEndpointResource,
	NewWebhookEndpointsExclusiveResource,
}
