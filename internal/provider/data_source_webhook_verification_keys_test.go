package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const webhookVerificationKeysTestData = `
data "custody_webhook_verification_keys" "test" {}
`

// webhookVerificationKeysTestExpect checks the data source against the key
// set the emulator publishes, asked for with the test's own client.
func webhookVerificationKeysTestExpect(t *testing.T, e *accEmulator) statecheck.StateCheck {
	t.Helper()
	set, err := e.client.GetWebhookKeySet(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 1 {
		t.Fatalf("the emulator publishes %d keys, want 1", len(set.Keys))
	}
	k := set.Keys[0]
	return statecheck.ExpectKnownValue("data.custody_webhook_verification_keys.test", tfjsonpath.New("keys"),
		knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
			"kid":                 knownvalue.StringExact(k.Kid),
			"kty":                 knownvalue.StringExact("OKP"),
			"crv":                 knownvalue.StringExact("Ed25519"),
			"alg":                 knownvalue.StringExact("EdDSA"),
			"use":                 knownvalue.StringExact("sig"),
			"x":                   knownvalue.StringExact(k.X),
			"signature_algorithm": knownvalue.StringExact("ed25519"),
			"signature_version":   knownvalue.StringExact("v1"),
		})}))
}

// webhookVerificationKeysTestBaseURLOnly is a provider block without
// credentials; the CUSTODY_* variables are emptied so that none leaks in.
func webhookVerificationKeysTestBaseURLOnly(t *testing.T, baseURL string) string {
	for _, v := range []string{"CUSTODY_BASE_URL", "CUSTODY_ORGANIZATION_ID", "CUSTODY_API_PUBLIC_KEY", "CUSTODY_API_PRIVATE_KEY"} {
		t.Setenv(v, "")
	}
	return fmt.Sprintf("provider \"custody\" {\n  base_url = %q\n}\n", baseURL)
}

func TestAccWebhookVerificationKeysDataSource_withCredentials(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:            e.config(webhookVerificationKeysTestData),
			ConfigStateChecks: []statecheck.StateCheck{webhookVerificationKeysTestExpect(t, e)},
		}},
	})
}

// The key set is public: a provider with only base_url serves it, while
// everything else reports the missing credentials.
func TestAccWebhookVerificationKeysDataSource_withoutCredentials(t *testing.T) {
	e := newAccEmulator(t)
	provider := webhookVerificationKeysTestBaseURLOnly(t, e.url)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:            provider + webhookVerificationKeysTestData,
				ConfigStateChecks: []statecheck.StateCheck{webhookVerificationKeysTestExpect(t, e)},
			},
			{
				Config: provider + webhookVerificationKeysTestData + `
resource "custody_policy" "test" {
  name   = "needs credentials"
  effect = "EFFECT_ALLOW"
  notes  = "cannot be created without an API key"
}
`,
				ExpectError: regexp.MustCompile(`Missing provider credentials`),
			},
		},
	})
}

func TestAccWebhookVerificationKeysDataSource_fetchError(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      webhookVerificationKeysTestBaseURLOnly(t, down.URL) + webhookVerificationKeysTestData,
			ExpectError: regexp.MustCompile(`(?s)Error reading webhook verification keys.*/public/v1/discovery/webhooks/jwks.*503`),
		}},
	})
}
