package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// allResourceIdentities are the identities allResourcesConfig's objects
// hold: every organization_id is the provider's.
var allResourceIdentities = map[string]map[string]knownvalue.Check{
	"custody_organization_name.this":      {"organization_id": knownvalue.StringExact(accOrg)},
	"custody_policy.deny_exports":         {"id": knownvalue.NotNull(), "organization_id": knownvalue.StringExact(accOrg)},
	"custody_ip_allowlist.organization":   {"organization_id": knownvalue.StringExact(accOrg), "public_key": knownvalue.Null()},
	"custody_oauth_provider.ops":          {"user_id": knownvalue.StringExact("user-root"), "id": knownvalue.NotNull(), "organization_id": knownvalue.StringExact(accOrg)},
	"custody_private_key_tag.hot":         {"id": knownvalue.NotNull(), "organization_id": knownvalue.StringExact(accOrg)},
	"custody_webhook_endpoint.activities": {"id": knownvalue.NotNull(), "organization_id": knownvalue.StringExact(accOrg)},
}

// identityChecks checks that each resource of want holds its identity.
func identityChecks(want map[string]map[string]knownvalue.Check) []statecheck.StateCheck {
	var checks []statecheck.StateCheck
	for addr, identity := range want {
		checks = append(checks, statecheck.ExpectIdentity(addr, identity))
	}
	return checks
}

// TestAccAllResources_identity: every resource holds its identity after an
// apply, and imports back by it with an import block (Terraform 1.12+ and
// OpenTofu), planning no change.
func TestAccAllResources_identity(t *testing.T) {
	requireCLI(t, testclis.Identity)
	e := newAccEmulator(t)
	steps := []resource.TestStep{{Config: e.config(allResourcesConfig), ConfigStateChecks: identityChecks(allResourceIdentities)}}
	for _, addr := range allResourceAddresses {
		steps = append(steps, resource.TestStep{Config: e.config(allResourcesConfig), ResourceName: addr,
			ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity})
	}
	accTest(t, resource.TestCase{Steps: steps})
}

// TestAccAllResources_importByIdentity adopts objects made outside
// Terraform by the least identity that names each: organization_id left
// out (the provider's), `identity = {}` for the organization's name and
// its allowlist, and only the key for a key's allowlist. The import plans
// no change and state then holds the full identities. An identity of
// another organization is refused before anything is read.
func TestAccAllResources_importByIdentity(t *testing.T) {
	requireCLI(t, testclis.Identity)
	e := newAccEmulator(t)
	ctx := t.Context()
	on := true
	policy, err := e.client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "Deny exports", Effect: client.EffectDeny, Condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"}}})
	mustNot(t, err)
	tag, err := e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "hot-wallets"})
	mustNot(t, err)
	hook, err := e.client.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointParams{URL: "http://127.0.0.1:9/events", Name: "feed",
		Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES", IsActive: &on}}})
	mustNot(t, err)
	oauth, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-root", OauthProviders: []client.OauthProviderParams{
		{ProviderName: "sso", OidcClaims: &client.OidcClaims{Iss: "https://sso.example.com", Sub: "ops", Aud: "custody"}}}})
	mustNot(t, err)
	_, err = e.client.SetIPAllowlist(ctx, client.SetIPAllowlistParams{Enabled: &on, Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.0/8"}}})
	mustNot(t, err)
	key := e.key.PublicKeyHex()
	_, err = e.client.SetIPAllowlist(ctx, client.SetIPAllowlistParams{PublicKey: key, Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32"}}})
	mustNot(t, err)
	policyID, tagID, hookID, oauthID := policy.Result.PolicyIDs[0], tag.Result.PrivateKeyTagID, hook.Result.EndpointID, oauth.Result.ProviderIDs[0]

	config := e.config(fmt.Sprintf(`
resource "custody_organization_name" "this" { name = "Acceptance Org" }
import {
  to       = custody_organization_name.this
  identity = {}
}

resource "custody_policy" "deny" {
  name      = "Deny exports"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"
}
import {
  to       = custody_policy.deny
  identity = { id = %[1]q }
}

resource "custody_private_key_tag" "hot" { name = "hot-wallets" }
import {
  to       = custody_private_key_tag.hot
  identity = { id = %[2]q, organization_id = %[6]q }
}

resource "custody_webhook_endpoint" "feed" {
  url           = "http://127.0.0.1:9/events"
  name          = "feed"
  subscriptions = [{ event_type = "ACTIVITY_UPDATES" }]
}
import {
  to       = custody_webhook_endpoint.feed
  identity = { id = %[3]q }
}

resource "custody_oauth_provider" "sso" {
  user_id       = "user-root"
  provider_name = "sso"
  issuer        = "https://sso.example.com"
  subject       = "ops"
  audience      = "custody"
}
import {
  to       = custody_oauth_provider.sso
  identity = { user_id = "user-root", id = %[4]q }
}

resource "custody_ip_allowlist" "organization" {
  enabled = true
  rules   = [{ cidr = "127.0.0.0/8" }]
}
import {
  to       = custody_ip_allowlist.organization
  identity = {}
}

resource "custody_ip_allowlist" "mine" {
  public_key = %[5]q
  rules      = [{ cidr = "127.0.0.1/32" }]
}
import {
  to       = custody_ip_allowlist.mine
  identity = { public_key = %[5]q }
}
`, policyID, tagID, hookID, oauthID, key, accOrg))

	want := map[string]map[string]knownvalue.Check{
		"custody_organization_name.this":    {"organization_id": knownvalue.StringExact(accOrg)},
		"custody_policy.deny":               {"id": knownvalue.StringExact(policyID), "organization_id": knownvalue.StringExact(accOrg)},
		"custody_private_key_tag.hot":       {"id": knownvalue.StringExact(tagID), "organization_id": knownvalue.StringExact(accOrg)},
		"custody_webhook_endpoint.feed":     {"id": knownvalue.StringExact(hookID), "organization_id": knownvalue.StringExact(accOrg)},
		"custody_oauth_provider.sso":        {"user_id": knownvalue.StringExact("user-root"), "id": knownvalue.StringExact(oauthID), "organization_id": knownvalue.StringExact(accOrg)},
		"custody_ip_allowlist.organization": {"organization_id": knownvalue.StringExact(accOrg), "public_key": knownvalue.Null()},
		"custody_ip_allowlist.mine":         {"organization_id": knownvalue.StringExact(accOrg), "public_key": knownvalue.StringExact(key)},
	}
	var imports []plancheck.PlanCheck
	for addr := range want {
		imports = append(imports, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop))
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: e.config(`
resource "custody_organization_name" "this" { name = "Acceptance Org" }
import {
  to       = custody_organization_name.this
  identity = { organization_id = "org-elsewhere" }
}`),
			ExpectError: errorPhrases("Identity of another organization", `names organization "org-elsewhere"`),
		},
		{
			Config:            config,
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: imports, PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: identityChecks(want),
		},
	}})
}

// mustNot stops t at err.
func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAccPolicy_lostCreateIdentity: a create whose answer was lost keeps
// its placeholder while the activity waits for approval, through a
// refresh; once approved, the next refresh resolves it to the policy,
// and its identity from the placeholder's to the policy's, which the
// framework and Terraform would refuse ("Unexpected Identity Change")
// unless the identity may change.
func TestAccPolicy_lostCreateIdentity(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	config := e.providerBlock("max_retries = 1") + fmt.Sprintf(policyConsensusConfig, "")
	const addr = "custody_policy.test"
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{PreConfig: dropFirstAnswers(e, 2), Config: config, ExpectError: lostAnswerError},
			{
				PreConfig:    func() { e.srv.SetFaults(emulator.Faults{}) },
				RefreshState: true, ExpectNonEmptyPlan: true, // tainted: replaced by the next apply
				Check: resource.TestCheckResourceAttrWith(addr, "id", func(id string) error {
					if !strings.HasPrefix(id, client.LostCreateIDPrefix) {
						return fmt.Errorf("id %q: want the placeholder while the activity waits", id)
					}
					return nil
				}),
			},
			{
				PreConfig: func() {
					pending, err := policyConsensusActivities(approver, client.OpCreatePolicies.Type, client.StatusConsensusNeeded)
					if err == nil && len(pending) != 1 {
						err = fmt.Errorf("%d waiting creates, want 1", len(pending))
					}
					if err == nil {
						_, err = approver.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: pending[0].Fingerprint})
					}
					mustNot(t, err)
				},
				RefreshState: true, ExpectNonEmptyPlan: true, // tainted: replaced by the next apply
				Check: resource.TestCheckResourceAttrWith(addr, "id", func(id string) error {
					if strings.HasPrefix(id, client.LostCreateIDPrefix) {
						return fmt.Errorf("id %q: want the approved policy's", id)
					}
					return nil
				}),
			},
			{
				// Someone must approve the replacement's delete.
				PreConfig: func() { policyStartVoter(t, approver, true) },
				Config:    config, PlanOnly: true, ExpectNonEmptyPlan: true,
			},
		},
	})
}

// identify fills an identity's nulls from state, gives a placeholder the
// organization alone, and refuses to change a value the identity had.
func TestIdentifyOnlyFillsNulls(t *testing.T) {
	e := newAccEmulator(t)
	r := &policyResource{resourceBase{typeName: "policy", identity: idIdentity("policy"), pd: newProviderData(e.client, time.Minute)}}
	ctx := t.Context()
	var sch fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sch)
	var ids fwresource.IdentitySchemaResponse
	r.IdentitySchema(ctx, fwresource.IdentitySchemaRequest{}, &ids)
	run := func(stateID, priorID, priorOrg string) (map[string]string, diag.Diagnostics) {
		state := tfsdk.State{Schema: sch.Schema, Raw: tftypes.NewValue(sch.Schema.Type().TerraformType(ctx), nil)}
		identity := tfsdk.ResourceIdentity{Schema: ids.IdentitySchema, Raw: tftypes.NewValue(ids.IdentitySchema.Type().TerraformType(ctx), nil)}
		var diags diag.Diagnostics
		diags.Append(state.SetAttribute(ctx, path.Root("id"), stateID)...)
		for name, v := range map[string]string{"id": priorID, identityOrganization: priorOrg} {
			if v != "" {
				diags.Append(identity.SetAttribute(ctx, path.Root(name), v)...)
			}
		}
		r.identify(ctx, &state, &identity, &diags)
		got := map[string]string{}
		for _, name := range []string{"id", identityOrganization} {
			var v types.String
			identity.GetAttribute(ctx, path.Root(name), &v)
			got[name] = v.ValueString()
		}
		return got, diags
	}
	placeholder := client.LostCreateIDPrefix + "0-activity-a1"
	for _, tc := range []struct{ stateID, priorID, priorOrg, wantID, wantOrg string }{
		{"p1", "", "", "p1", accOrg},       // created, or read on Terraform 1.11
		{"p1", "p1", "", "p1", accOrg},     // imported without organization_id
		{placeholder, "", "", "", accOrg},  // a placeholder whose activity waits
		{"p1", "", accOrg, "p1", accOrg},   // that placeholder resolved
		{"p1", "p1", accOrg, "p1", accOrg}, // read again
	} {
		got, diags := run(tc.stateID, tc.priorID, tc.priorOrg)
		if diags.HasError() || got["id"] != tc.wantID || got[identityOrganization] != tc.wantOrg {
			t.Errorf("state id %q, prior {%q, %q}: identity %v, %v; want {%q, %q}", tc.stateID, tc.priorID, tc.priorOrg, got, diags,
				tc.wantID, tc.wantOrg)
		}
	}
	for _, prior := range [][2]string{{"p0", accOrg}, {"p1", "org-elsewhere"}} {
		if _, diags := run("p1", prior[0], prior[1]); !diags.HasError() || diags.Errors()[0].Summary() != "Unexpected Identity Change" {
			t.Errorf("identity {%q, %q} read as p1: %v; want Unexpected Identity Change", prior[0], prior[1], diags)
		}
	}
}
