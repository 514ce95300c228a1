package provider

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// oauthProvidersTestAlice is a user of the example fixtures.
const oauthProvidersTestAlice = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82"

// oauthProvidersTestCreate adds providers, by their claims, to a user and
// returns what the service then lists for that user. Each is added by an
// activity of its own: providers added together share created_at, and the
// service then orders them by their random ids.
func oauthProvidersTestCreate(t *testing.T, e *accEmulator, user string, providers ...client.OauthProviderParams) []client.OauthProvider {
	t.Helper()
	ctx := context.Background()
	for _, p := range providers {
		if _, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: user, OauthProviders: []client.OauthProviderParams{p}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: user})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.OauthProviders) != len(providers) {
		t.Fatalf("user %s has %d providers, want %d", user, len(got.OauthProviders), len(providers))
	}
	return got.OauthProviders
}

// oauthProvidersTestTime is the RFC 3339 text expected for ts.
func oauthProvidersTestTime(t *testing.T, ts client.Timestamp) knownvalue.Check {
	t.Helper()
	v, err := ts.Time()
	if err != nil {
		t.Fatal(err)
	}
	return knownvalue.StringExact(v.UTC().Format(time.RFC3339Nano))
}

// oauthProvidersTestList expects exactly these providers, in this order.
func oauthProvidersTestList(t *testing.T, ps []client.OauthProvider) knownvalue.Check {
	t.Helper()
	checks := []knownvalue.Check{}
	for _, p := range ps {
		checks = append(checks, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"provider_id":   knownvalue.StringExact(p.ProviderID),
			"provider_name": knownvalue.StringExact(p.ProviderName),
			"issuer":        knownvalue.StringExact(p.Issuer),
			"audience":      knownvalue.StringExact(p.Audience),
			"subject":       knownvalue.StringExact(p.Subject),
			"created_at":    oauthProvidersTestTime(t, p.CreatedAt),
			"updated_at":    oauthProvidersTestTime(t, p.UpdatedAt),
		}))
	}
	return knownvalue.ListExact(checks)
}

func TestAccOauthProvidersDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	root := oauthProvidersTestCreate(t, e, "user-root",
		client.OauthProviderParams{ProviderName: "google", OidcClaims: &client.OidcClaims{
			Iss: "https://accounts.google.com", Sub: "109876543210987654321", Aud: "app-1234.apps.googleusercontent.com"}},
		client.OauthProviderParams{ProviderName: "okta", OidcClaims: &client.OidcClaims{
			Iss: "https://acme.okta.com", Sub: "00u1a2b3c4d5e6f7g8h9", Aud: "0oa1b2c3d4e5f6g7h8i9"}},
	)
	alice := oauthProvidersTestCreate(t, e, oauthProvidersTestAlice,
		client.OauthProviderParams{ProviderName: "github", OidcClaims: &client.OidcClaims{
			Iss: "https://token.actions.githubusercontent.com", Sub: "repo:acme/treasury:ref:refs/heads/main", Aud: "custody"}},
	)
	// Spelled out once, so that fields swapped by the data source cannot
	// hide behind the values read through the client.
	if root[0].Issuer != "https://accounts.google.com" || root[0].Subject != "109876543210987654321" || root[0].Audience != "app-1234.apps.googleusercontent.com" {
		t.Fatalf("the service stored %+v", root[0])
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: e.config(`
data "custody_oauth_providers" "caller" {}

data "custody_oauth_providers" "root" {
  user_id = "user-root"
}

data "custody_oauth_providers" "alice" {
  user_id = "` + oauthProvidersTestAlice + `"
}

data "custody_oauth_providers" "bob" {
  user_id = "89fb0b52-ac56-409e-9562-928e783fc57b"
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				// No user_id: the key's own user (user-root), not alice.
				statecheck.ExpectKnownValue("data.custody_oauth_providers.caller", tfjsonpath.New("user_id"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.custody_oauth_providers.caller", tfjsonpath.New("providers"), oauthProvidersTestList(t, root)),
				statecheck.ExpectKnownValue("data.custody_oauth_providers.root", tfjsonpath.New("providers"), oauthProvidersTestList(t, root)),
				statecheck.ExpectKnownValue("data.custody_oauth_providers.root", tfjsonpath.New("providers").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"provider_name": knownvalue.StringExact("google"),
					"issuer":        knownvalue.StringExact("https://accounts.google.com"),
					"audience":      knownvalue.StringExact("app-1234.apps.googleusercontent.com"),
					"subject":       knownvalue.StringExact("109876543210987654321"),
					"created_at":    knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)),
				})),
				statecheck.ExpectKnownValue("data.custody_oauth_providers.alice", tfjsonpath.New("providers"), oauthProvidersTestList(t, alice)),
				statecheck.ExpectKnownValue("data.custody_oauth_providers.bob", tfjsonpath.New("providers"), knownvalue.ListExact([]knownvalue.Check{})),
			},
		}},
	})
}

func TestAccOauthProvidersDataSource_errors(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			// "" would be left out of the request and list the caller's
			// providers instead: refused at plan time.
			planFails(e.dataBlock("custody_oauth_providers", "user_id", ""), regexp.MustCompile(`(?s)user_id.*must be a user id`)),
			planFails(e.dataBlock("custody_oauth_providers", "user_id", "no-such-user"), regexp.MustCompile(`(?s)Error reading OAuth providers.*get_oauth_providers for user no-such-user failed.*HTTP 404`)),
		},
	})
}
