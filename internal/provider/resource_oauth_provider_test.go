package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const (
	oauthProviderTestAddr   = "custody_oauth_provider.test"
	oauthProviderTestIssuer = "https://issuer.example.com"
)

// oauthProviderTestJWT builds an unsigned JWT from oauthProviderTestIssuer:
// the emulator reads the claims without verifying the signature. aud may be
// a string or a list.
func oauthProviderTestJWT(sub string, aud any) string {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]any{"alg": "none", "typ": "JWT"}) + "." +
		enc(map[string]any{"iss": oauthProviderTestIssuer, "sub": sub, "aud": aud, "iat": 1700000000}) + "." +
		base64.RawURLEncoding.EncodeToString([]byte("not-a-signature"))
}

// oauthProviderTestIDs lists the provider ids the service holds for the
// emulator's root user.
func oauthProviderTestIDs(e *accEmulator) ([]string, error) {
	got, err := e.client.GetOauthProviders(context.Background(), client.GetOauthProvidersRequest{UserID: "user-root"})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, p := range got.OauthProviders {
		ids = append(ids, p.ProviderID)
	}
	return ids, nil
}

// oauthProviderTestCount checks how many providers the service holds, so
// that a replacement is shown to delete the old one.
func oauthProviderTestCount(e *accEmulator, want int) resource.TestCheckFunc {
	return checkService(func(context.Context) error {
		ids, err := oauthProviderTestIDs(e)
		if err != nil {
			return err
		}
		if len(ids) != want {
			return fmt.Errorf("the service holds providers %v, want %d", ids, want)
		}
		return nil
	})
}

func oauthProviderTestImportID(s *terraform.State) (string, error) {
	rs, ok := s.RootModule().Resources[oauthProviderTestAddr]
	if !ok {
		return "", fmt.Errorf("%s not in state", oauthProviderTestAddr)
	}
	return rs.Primary.Attributes["user_id"] + "/" + rs.Primary.ID, nil
}

func oauthProviderTestCase(e *accEmulator, steps ...resource.TestStep) resource.TestCase {
	return resource.TestCase{
		CheckDestroy: oauthProviderTestCount(e, 0),
		Steps:        steps,
	}
}

// oauthProviderTestClaims checks the claims in state.
func oauthProviderTestClaims(sub, aud string) []statecheck.StateCheck {
	return attrsAre(oauthProviderTestAddr, map[string]knownvalue.Check{
		"issuer": knownvalue.StringExact(oauthProviderTestIssuer), "subject": knownvalue.StringExact(sub), "audience": knownvalue.StringExact(aud)})
}

func TestAccOauthProvider_claims(t *testing.T) {
	e := newAccEmulator(t)
	cfg := func(name string) string {
		return e.config(fmt.Sprintf(`
resource "custody_oauth_provider" "test" {
  user_id       = "user-root"
  provider_name = %q
  issuer        = %q
  subject       = "subject-1"
  audience      = "app-1"
}
`, name, oauthProviderTestIssuer))
	}
	idChanges := statecheck.CompareValue(compare.ValuesDiffer())
	before := map[string]int{}
	imp := accImport{addr: oauthProviderTestAddr, idFunc: oauthProviderTestImportID}
	accTest(t, oauthProviderTestCase(e,
		resource.TestStep{
			PreConfig:        func() { before = e.srv.RequestCounts() },
			Config:           cfg("google"),
			ConfigPlanChecks: expectAction(oauthProviderTestAddr, plancheck.ResourceActionCreate),
			ConfigStateChecks: append(append(oauthProviderTestClaims("subject-1", "app-1"),
				idChanges.AddStateValue(oauthProviderTestAddr, tfjsonpath.New("id"))),
				attrsAre(oauthProviderTestAddr, map[string]knownvalue.Check{
					"id":                    knownvalue.StringRegexp(accNonBlank),
					"user_id":               knownvalue.StringExact("user-root"),
					"provider_name":         knownvalue.StringExact("google"),
					"oidc_token":            knownvalue.Null(),
					"oidc_token_wo":         knownvalue.Null(),
					"oidc_token_wo_version": knownvalue.Null(),
					"created_at":            knownvalue.StringRegexp(accRFC3339),
					"timeouts":              knownvalue.Null(),
				})...),
			// Claims are stored as sent: the create reads nothing back.
			Check: resource.ComposeAggregateTestCheckFunc(
				accRequestsSince(e, &before, "creating a provider from its claims",
					map[string]int{"submit/create_oauth_providers": 1, "query/get_oauth_providers": 0}),
				oauthProviderTestCount(e, 1)),
		},
		// State holds the activity's time; an import has no activity and
		// takes the service's (the next step checks it is there).
		imp.verify("created_at"),
		imp.block(plannedIs(oauthProviderTestAddr, "subject", knownvalue.StringExact("subject-1")),
			plannedIs(oauthProviderTestAddr, "created_at", knownvalue.StringRegexp(accRFC3339))),
		resource.TestStep{
			// No update activity exists: a new name is a new provider, and
			// the old one goes first (the service refuses two with the same
			// claims).
			Config:           cfg("google-workspace"),
			ConfigPlanChecks: expectAction(oauthProviderTestAddr, plancheck.ResourceActionDestroyBeforeCreate),
			ConfigStateChecks: []statecheck.StateCheck{
				idChanges.AddStateValue(oauthProviderTestAddr, tfjsonpath.New("id")),
				attrIs(oauthProviderTestAddr, "provider_name", knownvalue.StringExact("google-workspace")),
			},
			Check: oauthProviderTestCount(e, 1),
		},
		resource.TestStep{
			// Drift: deleted outside Terraform, created again.
			PreConfig: outside(t, func(ctx context.Context) error {
				ids, err := oauthProviderTestIDs(e)
				if err == nil {
					_, err = e.client.DeleteOauthProviders(ctx, client.DeleteOauthProvidersParams{UserID: "user-root", ProviderIDs: ids})
				}
				return err
			}),
			Config:           cfg("google-workspace"),
			ConfigPlanChecks: expectAction(oauthProviderTestAddr, plancheck.ResourceActionCreate),
			Check:            oauthProviderTestCount(e, 1),
		},
	))
}

func TestAccOauthProvider_token(t *testing.T) {
	e := newAccEmulator(t)
	cfg := func(sub string, extra ...string) string {
		return e.config(fmt.Sprintf(`
resource "custody_oauth_provider" "test" {
  user_id       = "user-root"
  provider_name = "github-actions"
  oidc_token    = %q
  %s
}
`, oauthProviderTestJWT(sub, []string{"app-2", "other"}), strings.Join(extra, "\n")))
	}
	accTest(t, oauthProviderTestCase(e,
		resource.TestStep{
			Config:           cfg("repo:a"),
			ConfigPlanChecks: expectAction(oauthProviderTestAddr, plancheck.ResourceActionCreate),
			// The claims are read back from the token (aud: its first entry).
			ConfigStateChecks: append(oauthProviderTestClaims("repo:a", "app-2"),
				statecheck.ExpectSensitiveValue(oauthProviderTestAddr, tfjsonpath.New("oidc_token")),
				attrIs(oauthProviderTestAddr, "oidc_token_wo", knownvalue.Null()),
				attrIs(oauthProviderTestAddr, "created_at", knownvalue.StringRegexp(accRFC3339)),
			),
		},
		// The service never returns the token: import cannot know it.
		// created_at: the activity's time in state, the service's after an
		// import.
		accImport{addr: oauthProviderTestAddr, idFunc: oauthProviderTestImportID}.verify("oidc_token", "created_at"),
		resource.TestStep{
			// Only timeouts change: an update in place, not a replacement
			// (the claims, absent from the config, keep their state).
			Config:           cfg("repo:a", `timeouts = { create = "5m", delete = "5m" }`),
			ConfigPlanChecks: expectAction(oauthProviderTestAddr, plancheck.ResourceActionUpdate),
			ConfigStateChecks: append(oauthProviderTestClaims("repo:a", "app-2"),
				attrIs(oauthProviderTestAddr, "timeouts", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"create": knownvalue.StringExact("5m"), "delete": knownvalue.StringExact("5m")})),
			),
			Check: oauthProviderTestCount(e, 1),
		},
		resource.TestStep{
			Config:            cfg("repo:b"),
			ConfigPlanChecks:  expectAction(oauthProviderTestAddr, plancheck.ResourceActionDestroyBeforeCreate),
			ConfigStateChecks: oauthProviderTestClaims("repo:b", "app-2"),
			Check:             oauthProviderTestCount(e, 1),
		},
	))
}

func TestAccOauthProvider_writeOnly(t *testing.T) {
	e := newAccEmulator(t)
	cfg := func(token string, version int) string { return oauthProviderWriteOnlyConfig(e, token, version) }
	tok1 := oauthProviderTestJWT("wo-1", "app-3")
	tok2 := oauthProviderTestJWT("wo-2", "app-3")
	tokenNotInState := func(tok string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			for k, v := range s.RootModule().Resources[oauthProviderTestAddr].Primary.Attributes {
				if strings.Contains(v, tok) {
					return fmt.Errorf("the write-only token is in state, in %s", k)
				}
			}
			return nil
		}
	}
	tc := oauthProviderTestCase(e,
		resource.TestStep{
			Config:           cfg(tok1, 1),
			ConfigPlanChecks: expectAction(oauthProviderTestAddr, plancheck.ResourceActionCreate),
			ConfigStateChecks: append(oauthProviderTestClaims("wo-1", "app-3"),
				attrIs(oauthProviderTestAddr, "oidc_token_wo", knownvalue.Null()),
				attrIs(oauthProviderTestAddr, "oidc_token", knownvalue.Null()),
				attrIs(oauthProviderTestAddr, "oidc_token_wo_version", knownvalue.Int64Exact(1)),
			),
			Check: tokenNotInState(tok1),
		},
		resource.TestStep{
			// Terraform cannot see a write-only value change: without a
			// new version, a new token plans nothing (as documented).
			Config:   cfg(tok2, 1),
			PlanOnly: true,
		},
		resource.TestStep{
			Config:            cfg(tok2, 2),
			ConfigPlanChecks:  expectAction(oauthProviderTestAddr, plancheck.ResourceActionDestroyBeforeCreate),
			ConfigStateChecks: oauthProviderTestClaims("wo-2", "app-3"),
			Check:             resource.ComposeTestCheckFunc(tokenNotInState(tok2), oauthProviderTestCount(e, 1)),
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}
	accTest(t, tc)
}

func TestAccOauthProvider_errors(t *testing.T) {
	e := newAccEmulator(t)
	tok := oauthProviderTestJWT("s", "a")
	cfg := func(user, body string) string {
		return e.config(`
resource "custody_oauth_provider" "test" {
  user_id       = "` + user + `"
  provider_name = "p"
` + body + `
}
`)
	}
	step := func(body, want string) resource.TestStep {
		return planFails(cfg("user-root", body), ipAllowlistErrRE(want))
	}
	const claims = `issuer = "i"
  subject = "s"
  audience = "a"`
	tc := oauthProviderTestCase(e,
		step(``, `No way to identify the OAuth provider`),
		step(`oidc_token = "`+tok+`"
  `+claims, `sets oidc_token and claims \(issuer, subject, audience\)`),
		step(`oidc_token = "`+tok+`"
  oidc_token_wo = "`+tok+`"
  oidc_token_wo_version = 1`, `sets oidc_token_wo and oidc_token`),
		step(`issuer = "i"
  subject = "s"`, `issuer, subject and audience must be set together; issuer, subject set, audience missing`),
		step(`oidc_token_wo = "`+tok+`"`, `Missing oidc_token_wo_version`),
		step(claims+`
  oidc_token_wo_version = 1`, `oidc_token_wo_version versions the write-only token`),
		step(`oidc_token = "not-a-jwt"`, `The token is not a JWT`),
		step(`issuer = " "
  subject = "s"
  audience = "a"`, `must not be empty or only white space`),
		resource.TestStep{
			// Not at plan time, but the service's refusal must name the user.
			Config:      cfg("user-nobody", claims),
			ExpectError: ipAllowlistErrRE(`Error creating OAuth provider(.|\n)*user user-nobody not found`),
		},
		resource.TestStep{
			Config:       cfg("user-root", claims),
			ResourceName: oauthProviderTestAddr, ImportState: true, ImportStateId: "just-an-id",
			ExpectError: ipAllowlistErrRE(`Expected an import ID of the form <user_id>/<provider_id>`),
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}
	accTest(t, tc)
}

func TestOauthProviderSchema(t *testing.T) {
	ipAllowlistSchemaDocumented(t, NewOauthProviderResource())
}

// TestAccOauthProvider_adoptedThenToken is what the guide "Adopting an
// existing organization" says about rotating the token of an adopted
// provider: the configuration generated at import holds the claims; to
// register a token instead, replace them with oidc_token_wo and an
// oidc_token_wo_version, which replaces the provider once and then plans
// nothing.
func TestAccOauthProvider_adoptedThenToken(t *testing.T) {
	e := newAccEmulator(t)
	claims := e.config(`
resource "custody_oauth_provider" "test" {
  user_id       = "user-root"
  provider_name = "ci"
  issuer        = "` + oauthProviderTestIssuer + `"
  subject       = "adopted"
  audience      = "app-4"
}
`)
	token := func(version int) string {
		return oauthProviderWriteOnlyConfig(e, oauthProviderTestJWT("rotated", "app-4"), version)
	}
	accTest(t, oauthProviderTestCase(e,
		resource.TestStep{Config: claims, ConfigStateChecks: oauthProviderTestClaims("adopted", "app-4")},
		resource.TestStep{
			Config:            token(1),
			ConfigPlanChecks:  expectAction(oauthProviderTestAddr, plancheck.ResourceActionDestroyBeforeCreate),
			ConfigStateChecks: oauthProviderTestClaims("rotated", "app-4"),
			Check:             oauthProviderTestCount(e, 1),
		},
	))
}

// oauthProviderWriteOnlyConfig is the test provider registered from token,
// given write-only, at version.
func oauthProviderWriteOnlyConfig(e *accEmulator, token string, version int) string {
	return e.config(fmt.Sprintf(`
resource "custody_oauth_provider" "test" {
  user_id               = "user-root"
  provider_name         = "ci"
  oidc_token_wo         = %q
  oidc_token_wo_version = %d
}
`, token, version))
}
