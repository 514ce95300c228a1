package provider

// Plan-time checks of custody_ip_allowlist and the messages that explain a
// lockout; split from resource_ip_allowlist.go to keep it short.

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// ipAllowlistName names an allowlist in messages.
func ipAllowlistName(publicKey string) string {
	if publicKey == "" {
		return "the organization-level IP allowlist"
	}
	return "the IP allowlist of API key " + publicKey
}

const ipAllowlistRecoveryHelp = "An IP allowlist that leaves out the address Terraform runs from locks the key out: its own " +
	"allowlist if it has one, else the organization-level one while enabled. To recover, remove or fix that allowlist with " +
	"another API key that is still allowed (for example one with its own key-level allowlist that includes its address), " +
	"then include Terraform's address in the rules and apply again."

// ipAllowlistDenied tells a refusal by the service (HTTP 403 or
// PERMISSION_DENIED), which an allowlist is the likely cause of here.
func ipAllowlistDenied(err error) bool {
	var apiErr *client.APIError
	return errors.As(err, &apiErr) && (apiErr.HTTPStatus == 403 || apiErr.Code == client.CodePermissionDenied)
}

const ipAllowlistEnabledScopeHelp = "enabled applies to the organization-level allowlist only (the one without public_key). " +
	"A key-level allowlist is always enforced: remove enabled, or remove public_key to manage the organization-level allowlist."

// ipAllowlistEnabledScope refuses enabled together with public_key at plan
// time, with a message that says why (the service would refuse it at apply).
var ipAllowlistEnabledScope = ipAllowlistEnabledScopeValidator{
	"enabled applies to the organization-level allowlist only and cannot be set with public_key"}

type ipAllowlistEnabledScopeValidator struct{ described }

func (ipAllowlistEnabledScopeValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var enabled types.Bool
	var publicKey types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("enabled"), &enabled)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("public_key"), &publicKey)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// An unknown public_key may turn out null; Create checks again then.
	if !enabled.IsNull() && !publicKey.IsNull() && !publicKey.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("enabled"), "enabled cannot be set on a key-level allowlist", ipAllowlistEnabledScopeHelp)
	}
}

// ipAllowlistEnabledDefault plans enabled when the configuration leaves it
// out: false for the organization-level allowlist (what the service stores
// when it is absent, so there is no perpetual difference) and null for a
// key-level one, which has no switch.
var ipAllowlistEnabledDefault = ipAllowlistEnabledDefaultModifier{
	"defaults to false for the organization-level allowlist; null for a key-level one"}

type ipAllowlistEnabledDefaultModifier struct{ described }

func (ipAllowlistEnabledDefaultModifier) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if !req.ConfigValue.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var publicKey types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("public_key"), &publicKey)...)
	switch {
	case publicKey.IsUnknown():
		resp.PlanValue = types.BoolUnknown()
	case publicKey.IsNull():
		resp.PlanValue = types.BoolValue(false)
	default:
		resp.PlanValue = types.BoolNull()
	}
}
