package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ importableResource                    = &oauthProviderResource{}
	_ resource.ResourceWithConfigValidators = &oauthProviderResource{}
)

// NewOauthProviderResource is the custody_oauth_provider resource.
func NewOauthProviderResource() resource.Resource {
	return &oauthProviderResource{resourceBase{typeName: "oauth_provider", identity: oauthProviderIdentity}}
}

type oauthProviderResource struct{ resourceBase }

type oauthProviderModel struct {
	ID                 types.String      `tfsdk:"id"`
	UserID             types.String      `tfsdk:"user_id"`
	ProviderName       types.String      `tfsdk:"provider_name"`
	OIDCToken          types.String      `tfsdk:"oidc_token"`
	OIDCTokenWO        types.String      `tfsdk:"oidc_token_wo"`
	OIDCTokenWOVersion types.Int64       `tfsdk:"oidc_token_wo_version"`
	Issuer             types.String      `tfsdk:"issuer"`
	Subject            types.String      `tfsdk:"subject"`
	Audience           types.String      `tfsdk:"audience"`
	CreatedAt          timetypes.RFC3339 `tfsdk:"created_at"`
	resourceTimeouts
}

// oauthProviderClaim is the schema of issuer, subject and audience: set
// in configuration (the claims variant) or read back from the service.
func oauthProviderClaim(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Computed: true,
		MarkdownDescription: desc + " Set it, with the other two claims, to register the provider without a token; " +
			"otherwise it is read from the token by the service. Changing it replaces the provider.",
		// UseStateForUnknown first: when the claims come from a token they
		// are not in the configuration, and RequiresReplace would otherwise
		// see an unknown value and replace on every plan.
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
		Validators:    []validator.String{notBlank()},
	}
}

func (r *oauthProviderResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An OAuth (OIDC) provider of a user: tokens from `issuer` whose `sub` and `aud` match let the " +
			"user authenticate. Register it from an OIDC token or from its claims, exactly one of:\n\n" +
			"- `oidc_token_wo` with `oidc_token_wo_version` (Terraform 1.11 or later): the token is sent once and never stored " +
			"in plan or state; raise the version to register a new token.\n" +
			"- `oidc_token`: the token is hidden in output but **stored in state**; prefer `oidc_token_wo`.\n" +
			"- `issuer`, `subject` and `audience` together: no token needed.\n\n" +
			"The service has no update activity for OAuth providers, so every change replaces the provider (it is deleted, " +
			"then created: the service refuses two providers with the same issuer, subject and audience). Create submits " +
			"`" + client.OpCreateOauthProviders.Type + "` with one provider (and reads it back only when it was registered from a " +
			"token, whose claims only the service knows), delete `" + client.OpDeleteOauthProviders.Type + "` " +
			"(a provider already gone counts as deleted). Refresh lists the user's providers with `get_oauth_providers`, once per " +
			"user per Terraform command (shared with `custody_oauth_providers`): a " +
			"provider deleted outside Terraform (or whose user is gone) is planned for creation again.\n\n" +
			"Import with `<user_id>/<provider_id>`. The service never returns the token, so import a provider with a " +
			"configuration that sets the claims; a configuration with a token would plan a replacement after import.",
		Attributes: map[string]schema.Attribute{
			"id": idAttribute("The provider id the service assigned."),
			"user_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The user the provider belongs to; the user must exist. Changing it replaces the provider.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{notBlank()},
			},
			"provider_name": nameAttribute("A name for the provider, e.g. `google` (1 to 256 bytes, not blank). Changing it replaces "+
				"the provider.", stringplanmodifier.RequiresReplace()),
			"oidc_token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "An OIDC token (a JWT) whose `iss`, `sub` and `aud` claims identify the provider. Sensitive, " +
					"but stored in state: prefer `oidc_token_wo`. Changing it replaces the provider.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{oauthProviderJWTShape},
			},
			"oidc_token_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				MarkdownDescription: "Write-only (Terraform 1.11 or later): an OIDC token (a JWT) whose `iss`, `sub` and `aud` " +
					"claims identify the provider. It is sent when the provider is created and never stored in plan or state, " +
					"so Terraform cannot see it change: set `oidc_token_wo_version` with it and raise the version to register a new token. " +
					"The attribute keeps it out; a plain variable that feeds it does not (a saved plan holds the variable's value): " +
					"take the token from an ephemeral variable or resource. " +
					"The service keeps the token in the create activity (its intent, and the request body its requester signed); " +
					"`custody_activity` shows `" + client.Redacted + "` in its place in both, so reading that activity does not " +
					"bring the token into state either, and that vote's message can then no longer be checked against its signature.",
				Validators: []validator.String{oauthProviderJWTShape},
			},
			"oidc_token_wo_version": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Required with `oidc_token_wo`: any number, kept in state. Changing it replaces the provider " +
					"with one created from the current `oidc_token_wo`.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"issuer":   oauthProviderClaim("The token issuer (`iss`), an authentication server URL such as `https://accounts.google.com`."),
			"subject":  oauthProviderClaim("The expected `sub` of tokens: the user's id at the issuer."),
			"audience": oauthProviderClaim("The expected `aud` of tokens: the application's client id."),
			"created_at": timestampAttribute("When the provider was created (RFC 3339, UTC): for a provider this resource created, the time "+
				"its activity completed, as the activity's answer says; for an imported one, the service's `createdAt`. It is set "+
				"once and never refreshed, so that the service's record, which may differ slightly, never shows as a change.",
				stringplanmodifier.UseStateForUnknown()),
			"timeouts": oauthProviderTimeouts(ctx),
		},
	}
}

// oauthProviderTimeouts has no update timeout: nothing is updated in place
// (every change but timeouts replaces the provider).
func oauthProviderTimeouts(ctx context.Context) schema.Attribute {
	return timeoutsAttribute(ctx, timeouts.Opts{Create: true, Delete: true,
		CreateDescription: "How long create waits for `" + client.OpCreateOauthProviders.Type + "`" + waitDefault,
		DeleteDescription: "How long delete waits for `" + client.OpDeleteOauthProviders.Type + "`" + waitDefault,
	}, "How long create and delete wait for their activity, approvals by other users included. "+
		"There is no update timeout: every change replaces the provider.")
}

func (r *oauthProviderResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		oauthProviderOneSource,
		resourcevalidator.PreferWriteOnlyAttribute(path.MatchRoot("oidc_token"), path.MatchRoot("oidc_token_wo")),
	}
}

// oauthProviderListKey caches one user's providers for one command.
func oauthProviderListKey(userID string) string { return "oauth_providers/" + userID }

// cachedOauthProviders lists a user's providers once per command, for every
// custody_oauth_provider and custody_oauth_providers of that user.
func cachedOauthProviders(ctx context.Context, pd *providerData, userID string) (*client.GetOauthProvidersResponse, error) {
	return percommand.List(ctx, pd.lists, oauthProviderListKey(userID), func(ctx context.Context) (*client.GetOauthProvidersResponse, error) {
		return pd.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: userID})
	})
}

func (r *oauthProviderResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	// The write-only token is null in the plan; only the config has it.
	var tokenWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("oidc_token_wo"), &tokenWO)...)
	var plan oauthProviderModel
	timeout, ok := r.readTimed(ctx, req.Plan, &plan, timeouts.Value.Create, &resp.Diagnostics)
	if !ok {
		return
	}
	op := client.OauthProviderParams{ProviderName: plan.ProviderName.ValueString()}
	switch {
	case !tokenWO.IsNull():
		op.OidcToken = tokenWO.ValueString()
	case !plan.OIDCToken.IsNull():
		op.OidcToken = plan.OIDCToken.ValueString()
	default:
		op.OidcClaims = &client.OidcClaims{Iss: plan.Issuer.ValueString(), Sub: plan.Subject.ValueString(), Aud: plan.Audience.ValueString()}
	}
	userID := plan.UserID.ValueString()
	act, pos, err := r.pd.runner.Item(ctx, timeout, oauthProviderCreates(userID), op)
	r.pd.lists.Forget(oauthProviderListKey(userID))
	object := fmt.Sprintf("provider %q of user %s", op.ProviderName, userID)
	id, ok := itemCreated(ctx, act, pos, err, oauthProviderCreatedID, req.Plan, resp, "Error creating OAuth provider", client.OpCreateOauthProviders.Name, object)
	if !ok {
		return
	}
	plan.ID = types.StringValue(id)
	plan.OIDCTokenWO = types.StringNull()
	plan.CreatedAt = activityTime(act)
	if op.OidcClaims != nil {
		// Registered from its claims: the service stores them as sent, so
		// state is the plan, the new id and the activity's time.
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	// Registered from a token: only the service knows the claims it read
	// from it, so this one case reads the provider back.
	// The activity has run: record it even if Terraform is interrupting us.
	ctx, done := r.pd.client.SeeThrough(ctx)
	defer done()
	got, err := r.find(ctx, userID, plan.ID.ValueString())
	if err == nil && got == nil {
		err = fmt.Errorf("provider %s is not among the providers of user %s right after its creation", plan.ID.ValueString(), userID)
	}
	if err != nil {
		// Keep the provider in state (tainted, so the next apply replaces
		// it) rather than leave it unmanaged.
		for _, v := range []*types.String{&plan.Issuer, &plan.Subject, &plan.Audience} {
			if v.IsUnknown() {
				*v = types.StringNull()
			}
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		addAPIError(&resp.Diagnostics, "Error reading the created OAuth provider", client.QueryGetOauthProviders,
			"provider "+plan.ID.ValueString(), err)
		return
	}
	oauthProviderFlatten(&plan, *got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// find returns the user's provider id, nil when it is gone (also when the
// user is gone), through the list shared by the command's resources.
func (r *oauthProviderResource) find(ctx context.Context, userID, id string) (*client.OauthProvider, error) {
	list, err := cachedOauthProviders(ctx, r.pd, userID)
	if errors.Is(err, client.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i := range list.OauthProviders {
		if list.OauthProviders[i].ProviderID == id {
			return &list.OauthProviders[i], nil
		}
	}
	return nil, nil
}

// oauthProviderFlatten copies what the service stores into m; the tokens
// are never returned, so they stay as configured. created_at is taken only
// when m has none (import): one set from the creating activity is kept,
// so that a refresh never reports a change in it (see its description).
func oauthProviderFlatten(m *oauthProviderModel, p client.OauthProvider) {
	m.ProviderName = types.StringValue(p.ProviderName)
	m.Issuer = types.StringValue(p.Issuer)
	m.Subject = types.StringValue(p.Subject)
	m.Audience = types.StringValue(p.Audience)
	if !m.CreatedAt.IsNull() && !m.CreatedAt.IsUnknown() {
		return
	}
	m.CreatedAt = timestampValue(p.CreatedAt)
}

// oauthProviderCreatedID is the id of the provider at a position of what
// a create_oauth_providers activity made.
var oauthProviderCreatedID = client.CreatedID(oauthProvidersCreated, func(r client.ProviderIDsResult) []string { return r.ProviderIDs })

// oauthProvidersCreated is where create_oauth_providers lists its
// providers; a batch adds the user they belong to (oauthProviderCreates).
var oauthProvidersCreated = client.ItemShape{Op: client.OpCreateOauthProviders, ItemsKey: "oauthProviders"}

// oauthProviderCreates and oauthProviderDeletes batch the creates and
// deletes of one user's providers (see submit.Runner.Item): the service takes one
// user's in one activity.
func oauthProviderCreates(userID string) submit.Kind {
	shape := oauthProvidersCreated
	shape.Scope = map[string]any{"userId": userID}
	return submit.Kind{
		Shape: shape,
		Submit: submit.Items((*client.Client).CreateOauthProviders, func(items []client.OauthProviderParams) client.CreateOauthProvidersParams {
			return client.CreateOauthProvidersParams{UserID: userID, OauthProviders: items}
		}),
	}
}

func oauthProviderDeletes(userID string) submit.Kind {
	return submit.Kind{
		Shape: client.ItemShape{Op: client.OpDeleteOauthProviders, ItemsKey: "providerIds", Scope: map[string]any{"userId": userID}},
		Submit: submit.Items((*client.Client).DeleteOauthProviders, func(ids []string) client.DeleteOauthProvidersParams {
			return client.DeleteOauthProvidersParams{UserID: userID, ProviderIDs: ids}
		}),
	}
}

func (r *oauthProviderResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if !readLostCreate(ctx, r.pd, req, resp, client.OpCreateOauthProviders, oauthProviderCreatedID) {
		return
	}
	refreshState(ctx, resp, func(m *oauthProviderModel, diags *diag.Diagnostics) bool {
		userID, id := m.UserID.ValueString(), m.ID.ValueString()
		got, err := r.find(ctx, userID, id)
		if err != nil {
			addAPIError(diags, "Error reading OAuth provider", client.QueryGetOauthProviders, fmt.Sprintf("provider %s of user %s", id, userID), err)
			return false
		}
		if got == nil {
			tflog.Warn(ctx, "OAuth provider no longer exists; removing it from state", map[string]any{"provider_id": id, "user_id": userID})
			return false
		}
		oauthProviderFlatten(m, *got)
		return true
	})
}

// Update is reached only when timeouts alone change: every other attribute
// replaces the provider.
func (r *oauthProviderResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan oauthProviderModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.OIDCTokenWO = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *oauthProviderResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state oauthProviderModel
	timeout, ok := r.readTimed(ctx, req.State, &state, timeouts.Value.Delete, &resp.Diagnostics)
	if !ok {
		return
	}
	userID := state.UserID.ValueString()
	id, ok := deleteLostCreate(ctx, r.pd, resp, client.OpCreateOauthProviders, state.ID.ValueString(), oauthProviderCreatedID)
	if !ok {
		return
	}
	deleteItem(ctx, r.pd, timeout, oauthProviderDeletes(userID), id, fmt.Sprintf("provider %s of user %s", id, userID),
		"Error deleting OAuth provider", &resp.Diagnostics, oauthProviderListKey(userID))
}

// oauthProviderIdentity is { user_id, id, organization_id? }: the service
// lists providers by user, so the user is part of what names one.
var oauthProviderIdentity = identitySpec{
	attrs: []identityAttr{
		{name: "user_id", state: "user_id", required: true, desc: "The user the provider belongs to."},
		{name: "id", state: "id", required: true, desc: "The provider id the service assigned."},
		organizationAttr(""),
	},
	importID: func(v map[string]string) string { return v["user_id"] + "/" + v["id"] },
}

// ImportState takes `<user_id>/<provider_id>`, or the identity: the
// service lists providers by user, so the user is part of the id.
func (r *oauthProviderResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	importID, ok := r.identityImportID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	userID, id, ok := strings.Cut(importID, "/")
	if !ok || userID == "" || id == "" || strings.Contains(id, "/") {
		resp.Diagnostics.AddError("Invalid import ID for custody_oauth_provider",
			fmt.Sprintf("Expected an import ID of the form <user_id>/<provider_id>, such as user-123/5f0c..., got %q.", importID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("user_id"), userID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
