package provider

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
)

// The provider checks its credentials with one whoami when it is
// configured, so that the mistakes below fail `terraform plan` of a brand
// new policy, which sends no request of its own, instead of the apply.

const checkTestPolicy = `
resource "custody_policy" "ux" {
  name      = "ux"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"
}
`

// checkTestConfig is a provider block with these settings and the policy.
func checkTestConfig(url, org string, key *client.APIKey, extra ...string) string {
	return providerHCL(url, org, key, extra...) + checkTestPolicy
}

func strangerKey(t *testing.T) *client.APIKey {
	t.Helper()
	k := clienttest.NewAPIKey(t)
	return k
}

// planOfNewPolicyFails plans the new policy with config and expects the
// plan to fail with phrases, having submitted nothing.
func planOfNewPolicyFails(t *testing.T, e *accEmulator, config string, phrases ...string) {
	t.Helper()
	accTest(t, resource.TestCase{Steps: []resource.TestStep{planFails(config, errorPhrases(phrases...))}})
	if e != nil {
		expectNoSubmits(t, e)
	}
}

func TestAccProviderCheck_unknownKey(t *testing.T) {
	e := newAccEmulator(t)
	stranger := strangerKey(t)
	planOfNewPolicyFails(t, e, checkTestConfig(e.url, accOrg, stranger),
		"Invalid provider credentials", "does not accept API key "+stranger.PublicKeyHex()+" for organization "+accOrg,
		"The service said:", "CUSTODY_API_PUBLIC_KEY", "CUSTODY_ORGANIZATION_ID", "whoami")
}

func TestAccProviderCheck_wrongOrganization(t *testing.T) {
	e := newAccEmulator(t)
	const wrong = "11111111-2222-3333-4444-555555555555"
	planOfNewPolicyFails(t, e, checkTestConfig(e.url, wrong, e.key),
		"Invalid provider credentials", "does not accept API key "+e.key.PublicKeyHex()+" for organization "+wrong,
		"is not registered in organization "+wrong, "CUSTODY_ORGANIZATION_ID")
}

func TestAccProviderCheck_unreachable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	planOfNewPolicyFails(t, nil, checkTestConfig(closed.URL, accOrg, strangerKey(t), "max_retries = 1"),
		"Provider cannot reach the custody service", "the custody service at "+closed.URL+" cannot be reached after 2 attempts",
		"connection refused", "CUSTODY_BASE_URL")
}

func TestAccProviderCheck_notTheService(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	planOfNewPolicyFails(t, nil, checkTestConfig(other.URL, accOrg, strangerKey(t)),
		"Invalid provider base_url", "what answers at "+other.URL+" is not the custody service (HTTP 404)", "It answered: 404 page not found",
		"CUSTODY_BASE_URL")
}

func TestAccProviderCheck_untrustedCertificate(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler()) // its certificate is trusted by nobody
	t.Cleanup(tlsSrv.Close)
	planOfNewPolicyFails(t, nil, checkTestConfig(tlsSrv.URL, accOrg, strangerKey(t)),
		"Provider cannot connect securely to the custody service", "the TLS connection to "+tlsSrv.URL+" failed",
		"certificate", "trusted by this machine")
}

// TestAccProviderCheck_skipped: with the check skipped, in the block or
// the environment, a plan of new objects needs no service at all.
func TestAccProviderCheck_skipped(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	offline := resource.TestStep{PlanOnly: true, ExpectNonEmptyPlan: true,
		Config: checkTestConfig(closed.URL, accOrg, strangerKey(t), "skip_credentials_validation = true")}
	t.Run("in the provider block", func(t *testing.T) {
		accTest(t, resource.TestCase{Steps: []resource.TestStep{offline}})
	})
	t.Run("from CUSTODY_SKIP_CREDENTIALS_VALIDATION", func(t *testing.T) {
		t.Setenv("CUSTODY_SKIP_CREDENTIALS_VALIDATION", "true")
		offline.Config = checkTestConfig(closed.URL, accOrg, strangerKey(t))
		accTest(t, resource.TestCase{Steps: []resource.TestStep{offline}})
	})
	t.Run("a variable that is no bool", func(t *testing.T) {
		t.Setenv("CUSTODY_SKIP_CREDENTIALS_VALIDATION", "sometimes")
		accTest(t, resource.TestCase{Steps: []resource.TestStep{planFails(checkTestConfig(closed.URL, accOrg, strangerKey(t)),
			errorPhrases("Invalid skip_credentials_validation", `CUSTODY_SKIP_CREDENTIALS_VALIDATION) must be true or false, got "sometimes"`))}})
	})
}

// TestAccProviderCheck_refreshImportAndLog runs the CLI: the identity the
// check finds is logged at INFO; a refresh and an import with a wrong
// organization fail once, on the provider's configuration, with the cause.
func TestAccProviderCheck_refreshImportAndLog(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	c.write(countedPolicies{label: "p", count: 3, name: "p", effect: client.EffectDeny}.hcl())
	c.mustRun(0, "apply", "-auto-approve")

	logged, code := c.run([]string{"TF_LOG=INFO"}, "plan", "-detailed-exitcode")
	line := regexp.MustCompile(`\[INFO\].*custody credentials verified:.*`).FindString(logged)
	for _, field := range []string{"organization_id=" + accOrg, `organization_name="Acceptance Org"`, "user_id=user-root", "username=root"} {
		if code != 0 || !strings.Contains(line, field) {
			t.Errorf("an empty plan whose INFO log names the verified user with %s was expected (exit %d):\n%s", field, code, logged)
		}
	}
	// The provider says which build it is (a plain build is "dev").
	if !regexp.MustCompile(`\[INFO\].*terraform-provider-custody dev:.*version=dev`).MatchString(logged) {
		t.Errorf("the INFO log should name the provider's version:\n%s", logged)
	}

	const wrong = "11111111-2222-3333-4444-555555555555"
	wrongOrg := []string{"CUSTODY_ORGANIZATION_ID=" + wrong}
	refreshed, code := c.run(wrongOrg, "plan")
	refreshed = strings.Join(strings.Fields(refreshed), " ") // as one line, whatever the CLI wrapped
	if code != 1 || strings.Count(refreshed, "Error:") != 1 || strings.Count(refreshed, "Error: Invalid provider credentials") != 1 ||
		strings.Count(refreshed, "is not registered in organization "+wrong) != 1 || !strings.Contains(refreshed, `with provider["registry.terraform.io/custody-labs/custody"]`) {
		t.Errorf("a refresh of three policies with a wrong organization should fail once, on the provider, with the cause (exit %d):\n%s", code, refreshed)
	}
	c.write(`
resource "custody_policy" "p" {
  count  = 3
  name   = "p${count.index}"
  effect = "EFFECT_DENY"
}

resource "custody_policy" "imported" {
  name   = "made elsewhere"
  effect = "EFFECT_DENY"
}
`)
	imported, code := c.run(wrongOrg, "import", "custody_policy.imported", "some-policy-id")
	imported = strings.Join(strings.Fields(imported), " ")
	if code != 1 || strings.Count(imported, "Error:") != 1 || !strings.Contains(imported, "Invalid provider credentials") || !strings.Contains(imported, "for organization "+wrong) {
		t.Errorf("an import with a wrong organization should fail on the check (exit %d):\n%s", code, imported)
	}
}
