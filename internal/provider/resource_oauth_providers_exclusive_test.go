package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestAccOauthProvider_exclusive walks custody_oauth_providers_exclusive
// on the provider's own user (whoami's, user-root) as
// TestAccPrivateKeyTag_exclusive walks the tags': the removals name each
// provider's claims; the claim imports by user id and by identity; two
// claims on one user are an error, one on each of two users is not; a
// change of user_id replaces it (planned twice by Terraform, as an update
// and then as a create, which is one claim, not two); and a provider the
// set references, replaced by its own resource, is removed once, by it.
func TestAccOauthProvider_exclusive(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	const addr, alice = "custody_oauth_providers_exclusive.root", "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"
	makeProvider := func(name string) string {
		t.Helper()
		out, err := e.client.CreateOauthProviders(t.Context(), client.CreateOauthProvidersParams{UserID: "user-root",
			OauthProviders: []client.OauthProviderParams{{ProviderName: name,
				OidcClaims: &client.OidcClaims{Iss: "https://" + name + ".example.com", Sub: "ops", Aud: "custody"}}}})
		mustNot(t, err)
		return out.Result.ProviderIDs[0]
	}
	providers := func() ([]string, error) {
		out, err := e.client.GetOauthProviders(t.Context(), client.GetOauthProvidersRequest{UserID: "user-root"})
		if err != nil {
			return nil, err
		}
		var names []string
		for _, p := range out.OauthProviders {
			names = append(names, p.ProviderName)
		}
		return names, nil
	}
	removal := func(id, name string) knownvalue.Check {
		return removalOf(map[string]any{"id": id, "name": name, "issuer": "https://" + name + ".example.com", "subject": "ops", "audience": "custody"})
	}
	keptAs := func(subject string) string {
		return `
resource "custody_oauth_provider" "kept" {
  user_id       = "user-root"
  provider_name = "kept"
  issuer        = "https://kept.example.com"
  subject       = "` + subject + `"
  audience      = "custody"
}
`
	}
	kept := keptAs("ops")
	idOf := func(name string) string {
		out, err := e.client.GetOauthProviders(t.Context(), client.GetOauthProvidersRequest{UserID: "user-root"})
		mustNot(t, err)
		for _, p := range out.OauthProviders {
			if p.ProviderName == name {
				return p.ProviderID
			}
		}
		t.Fatalf("no provider %q", name)
		return ""
	}
	const claimHCL = `
resource "custody_oauth_providers_exclusive" "root" {
  user_id      = "user-root"
  provider_ids = [custody_oauth_provider.kept.id]
}
`
	claim := func(user, ids string) string {
		return e.config(kept + `
resource "custody_oauth_providers_exclusive" "root" {
  user_id      = "` + user + `"
  provider_ids = [` + ids + `]
}
`)
	}
	config := claim("user-root", "custody_oauth_provider.kept.id")
	stray := makeProvider("stray")
	var late string

	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: config,
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate,
				expectRemovals(addr, func() []knownvalue.Check { return []knownvalue.Check{removal(stray, "stray")} })),
			Check: serviceHolds("OAuth providers", providers, "kept"),
		},
		{
			PreConfig: func() { late = makeProvider("late") },
			Config:    config,
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate,
				expectRemovals(addr, func() []knownvalue.Check { return []knownvalue.Check{removal(late, "late")} })),
			Check: serviceHolds("OAuth providers", providers, "kept"),
		},
		{RefreshState: true}, // removals keeps what the apply removed until a refresh
		{Config: config, ResourceName: addr, ImportState: true, ImportStateId: "user-root", ImportStateVerify: true},
		importByIdentityStep(t, config, addr),
		planFails(claim("user-root", `custody_oauth_provider.kept.id, "no-such-provider"`),
			errorPhrases("No such OAuth provider of user user-root", `provider_ids lists "no-such-provider"`)),
		planFails(config+`
resource "custody_oauth_providers_exclusive" "again" {
  user_id      = "user-root"
  provider_ids = []
}
`, errorPhrases("Two custody_oauth_providers_exclusive in one configuration")),
		{
			Config: config + `
resource "custody_oauth_providers_exclusive" "alice" {
  user_id      = "` + alice + `"
  provider_ids = []
}
`, PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("custody_oauth_providers_exclusive.alice", plancheck.ResourceActionCreate)}},
		},
		{
			Config: claim(alice, ""), PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)}},
		},
		{
			// A new subject replaces the kept provider: its old id is
			// planned as a removal too, and is gone when the claim applies.
			Config: e.config(keptAs("ops-2") + claimHCL),
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate,
				plancheck.ExpectResourceAction("custody_oauth_provider.kept", plancheck.ResourceActionDestroyBeforeCreate),
				expectRemovals(addr, func() []knownvalue.Check { return []knownvalue.Check{removal(idOf("kept"), "kept")} })),
			Check: serviceHolds("OAuth providers", providers, "kept"),
		},
		{
			PreConfig:        func() { makeProvider("after") },
			Config:           e.config(keptAs("ops-2")),
			ConfigPlanChecks: planAction(addr, plancheck.ResourceActionDestroy),
			Check:            serviceHolds("OAuth providers", providers, "after", "kept"),
		},
	}})
}
