package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The CUSTODY_* environment variables: Configure falls back to them where
// the provider block is silent, and checks them as it checks the block.

func TestConfigureFallsBackToEnvironment(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	t.Setenv("CUSTODY_BASE_URL", "http://localhost:1")
	t.Setenv("CUSTODY_ORGANIZATION_ID", "org-env")
	t.Setenv("CUSTODY_API_PUBLIC_KEY", key.PublicKeyHex())
	t.Setenv("CUSTODY_API_PRIVATE_KEY", key.PrivateKeyHex())
	t.Setenv("CUSTODY_MAX_RETRIES", "0")
	t.Setenv("CUSTODY_APPROVAL_TIMEOUT", "90s")
	// Nothing listens at the address: Configure would fail its check.
	t.Setenv("CUSTODY_SKIP_CREDENTIALS_VALIDATION", "true")
	resp := configure(t, nil)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	pd, ok := resp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("ResourceData is %T", resp.ResourceData)
	}
	if pd.client.OrganizationID() != "org-env" || pd.approvalTimeout.String() != "1m30s" {
		t.Fatalf("org %s, approval %s", pd.client.OrganizationID(), pd.approvalTimeout)
	}
	// The provider block wins over the environment.
	resp = configure(t, map[string]tftypes.Value{"organization_id": str("org-block")})
	if pd, ok = resp.ResourceData.(*providerData); !ok {
		t.Fatalf("ResourceData is %T", resp.ResourceData)
	}
	if got := pd.client.OrganizationID(); got != "org-block" {
		t.Fatalf("organization = %s, want the block's", got)
	}
}

// TestAccProviderConfiguredFromEnvironment drives the real CLI with an
// empty provider block: everything comes from CUSTODY_* variables.
func TestAccProviderConfiguredFromEnvironment(t *testing.T) {
	e := newAccEmulator(t)
	t.Setenv("CUSTODY_BASE_URL", e.url)
	t.Setenv("CUSTODY_ORGANIZATION_ID", accOrg)
	t.Setenv("CUSTODY_API_PUBLIC_KEY", e.key.PublicKeyHex())
	t.Setenv("CUSTODY_API_PRIVATE_KEY", e.key.PrivateKeyHex())
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: `
provider "custody" {}

resource "custody_organization_name" "this" {
  name = "Configured From Env"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("custody_organization_name.this", tfjsonpath.New("id"), knownvalue.StringExact(accOrg)),
			},
			Check: func(*terraform.State) error {
				who, err := e.client.Whoami(t.Context(), client.WhoamiRequest{})
				if err != nil || who.OrganizationName != "Configured From Env" {
					return fmt.Errorf("whoami: %+v %v", who, err)
				}
				return nil
			},
		}},
	})
}

// TestConfigureChecksTheVariables: nothing checks CUSTODY_MAX_RETRIES or
// CUSTODY_APPROVAL_TIMEOUT before Configure, which refuses a bad one on
// its attribute with a message naming the variable.
func TestConfigureChecksTheVariables(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	valid := validProviderBlock(key)
	tests := []struct{ env, value, attr, want string }{
		{"CUSTODY_MAX_RETRIES", "many", "max_retries", `CUSTODY_MAX_RETRIES) must be a whole number from 0 to 20, got "many"`},
		{"CUSTODY_MAX_RETRIES", "21", "max_retries", `got "21"`},
		{"CUSTODY_MAX_RETRIES", "-1", "max_retries", `got "-1"`},
		{"CUSTODY_APPROVAL_TIMEOUT", "soon", "approval_timeout", `CUSTODY_APPROVAL_TIMEOUT) must be a positive duration such as "30m", got "soon"`},
		{"CUSTODY_APPROVAL_TIMEOUT", "0s", "approval_timeout", `got "0s"`},
		{"CUSTODY_APPROVAL_TIMEOUT", "-5m", "approval_timeout", `got "-5m"`},
	}
	for _, tt := range tests {
		t.Run(tt.env+"="+tt.value, func(t *testing.T) {
			clearCustodyEnv(t)
			t.Setenv(tt.env, tt.value)
			oneErrorOn(t, configure(t, valid).Diagnostics.Errors(), tt.attr, tt.want)
		})
	}
	t.Run("good values", func(t *testing.T) {
		clearCustodyEnv(t)
		t.Setenv("CUSTODY_MAX_RETRIES", "20")
		t.Setenv("CUSTODY_APPROVAL_TIMEOUT", "1h30m")
		resp := configure(t, valid)
		pd, ok := resp.ResourceData.(*providerData)
		if resp.Diagnostics.HasError() || !ok || pd.approvalTimeout != 90*time.Minute {
			t.Fatalf("diagnostics %v, data %#v", resp.Diagnostics, resp.ResourceData)
		}
	})
}

// CUSTODY_BASE_URL without a scheme is refused at Configure, on base_url,
// with the rule's message and the variable named.
func TestConfigureRefusesBaseURLVariableWithoutScheme(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	clearCustodyEnv(t)
	t.Setenv("CUSTODY_BASE_URL", "api.example.com:443")
	block := validProviderBlock(key)
	delete(block, "base_url")
	oneErrorOn(t, configure(t, block).Diagnostics.Errors(), "base_url",
		`base_url "api.example.com:443" has no scheme: write it as "https://api.example.com:443" (http:// only for an emulator on a loopback address)`,
		"CUSTODY_BASE_URL")
}
