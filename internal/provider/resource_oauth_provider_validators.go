package provider

// Plan-time checks of custody_oauth_provider; split from
// resource_oauth_provider.go to keep it short.

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// oauthProviderOneSource checks, at plan time, that the configuration
// names the provider in exactly one way, with messages that say which.
var oauthProviderOneSource = oauthProviderOneSourceValidator{
	"exactly one of oidc_token_wo (with oidc_token_wo_version), oidc_token, or issuer + subject + audience must be set"}

type oauthProviderOneSourceValidator struct{ described }

const oauthProviderWays = "Set exactly one of: oidc_token_wo with oidc_token_wo_version (write-only, Terraform 1.11 or later; " +
	"preferred), oidc_token (stored in state), or issuer, subject and audience together (no token)."

func (oauthProviderOneSourceValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	strs := map[string]*types.String{}
	for _, name := range []string{"oidc_token", "oidc_token_wo", "issuer", "subject", "audience"} {
		v := new(types.String)
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), v)...)
		strs[name] = v
	}
	var version types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("oidc_token_wo_version"), &version)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, v := range strs {
		if v.IsUnknown() {
			return // it may turn out null or not; checked once known
		}
	}
	var ways, claims, missing []string
	for _, name := range []string{"oidc_token_wo", "oidc_token"} {
		if !strs[name].IsNull() {
			ways = append(ways, name)
		}
	}
	for _, name := range []string{"issuer", "subject", "audience"} {
		if strs[name].IsNull() {
			missing = append(missing, name)
		} else {
			claims = append(claims, name)
		}
	}
	if len(claims) > 0 {
		ways = append(ways, "claims ("+strings.Join(claims, ", ")+")")
	}
	switch {
	case len(ways) == 0:
		resp.Diagnostics.AddError("No way to identify the OAuth provider", oauthProviderWays)
	case len(ways) > 1:
		resp.Diagnostics.AddError("Conflicting ways to identify the OAuth provider",
			fmt.Sprintf("This configuration sets %s. %s The token already carries the claims, which are read back from it.",
				strings.Join(ways, " and "), oauthProviderWays))
	}
	if len(claims) > 0 && len(missing) > 0 {
		resp.Diagnostics.AddAttributeError(path.Root(missing[0]), "Incomplete OAuth provider claims",
			fmt.Sprintf("issuer, subject and audience must be set together; %s set, %s missing.",
				strings.Join(claims, ", "), strings.Join(missing, ", ")))
	}
	switch wo := strs["oidc_token_wo"]; {
	case !wo.IsNull() && version.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("oidc_token_wo_version"), "Missing oidc_token_wo_version",
			"oidc_token_wo is write-only: Terraform never stores it, so it cannot tell when it changes. Set oidc_token_wo_version "+
				"(e.g. 1) and raise it whenever you set a new token; the provider is then created again from the new token.")
	case wo.IsNull() && !version.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("oidc_token_wo_version"), "oidc_token_wo_version without oidc_token_wo",
			"oidc_token_wo_version versions the write-only token oidc_token_wo; set that token too, or remove the version.")
	}
}

// oauthProviderJWTShape checks that a token looks like a JWT (three
// dot-separated base64url parts) without ever quoting it: it is a secret.
var oauthProviderJWTShape = stringCheck{oauthProviderJWTHelp, "Invalid OIDC token", func(token string) string {
	if oauthProviderJWTRE.MatchString(token) {
		return ""
	}
	return "The token is not a JWT: " + oauthProviderJWTHelp + ". (The value is not shown because it is a credential.)"
}}

const oauthProviderJWTHelp = "value must be a JWT: three base64url parts separated by dots (header.payload.signature)"

var oauthProviderJWTRE = regexp.MustCompile(`^[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]+=*$`)
