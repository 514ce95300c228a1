package provider

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// custody_import_blocks read directly, as one command reads it, from an
// organization made by hand (adoptOrg): the requests it sends and what its
// filters leave out. The guide that uses it, run through Terraform, is
// data_source_import_blocks_guide_test.go.

// adoptOrg builds, through the client, an organization made by hand: 300
// policies (consensus and time expressions, names that come out alike or
// in other scripts), 30 tags with keys, 10 webhook endpoints with
// subscriptions, the organization's allowlist and the caller's key's, a
// new name and 2 OAuth providers of the caller's user.
func adoptOrg(t *testing.T, e *accEmulator) {
	t.Helper()
	ctx := t.Context()
	names := []string{"Signing", "signing!", "Подпись", "署名", "2fa required", "legacy"}
	var ps []client.PolicyParams
	for i := range 300 {
		p := client.PolicyParams{PolicyName: fmt.Sprintf("policy %03d", i), Effect: client.EffectAllow,
			Condition: "activity.resource == 'PRIVATE_KEY'"}
		if i < len(names) {
			p.PolicyName = names[i]
		}
		switch i % 3 {
		case 0:
			p.Consensus = "approvers.count() >= 2"
		case 1:
			p.Time = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"
			p.Notes = "office hours"
		}
		if i%7 == 0 {
			p.Effect = client.EffectDeny
		}
		ps = append(ps, p)
	}
	for i := 0; i < len(ps); i += 100 {
		if _, err := e.client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: ps[i : i+100]}); err != nil {
			t.Fatal(err)
		}
	}
	var keys client.CreatePrivateKeysParams
	for i := range 30 {
		keys.PrivateKeys = append(keys.PrivateKeys, client.PrivateKeyParams{PrivateKeyName: fmt.Sprintf("key-%d", i),
			Curve: "CURVE_SECP256K1", AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}})
	}
	made, err := e.client.CreatePrivateKeys(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range made.Result.PrivateKeys {
		tag := client.CreatePrivateKeyTagParams{PrivateKeyTagName: fmt.Sprintf("Tag %d", i), PrivateKeyIDs: []string{k.PrivateKeyID}}
		if _, err := e.client.CreatePrivateKeyTag(ctx, tag); err != nil {
			t.Fatal(err)
		}
	}
	on := true
	for i := range 10 {
		ep := client.CreateWebhookEndpointParams{URL: fmt.Sprintf("http://127.0.0.1:9/hook/%d", i), Name: fmt.Sprintf("hook %d", i),
			Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES", IsActive: &on,
				FiltersJSON: `{"activityTypes":["ACTIVITY_TYPE_CREATE_POLICY_V3"]}`}}}
		if _, err := e.client.CreateWebhookEndpoint(ctx, ep); err != nil {
			t.Fatal(err)
		}
	}
	rules := []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32", Label: "runner"}, {CIDR: "203.0.113.0/24", Label: "office"}}
	if _, err := e.client.SetIPAllowlist(ctx, client.SetIPAllowlistParams{Enabled: &on, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.SetIPAllowlist(ctx, client.SetIPAllowlistParams{PublicKey: e.key.PublicKeyHex(),
		Rules: []client.IPAllowlistRuleParams{{CIDR: "127.0.0.1/32"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.UpdateOrganizationName(ctx, client.UpdateOrganizationNameParams{OrganizationName: "Acme Treasury"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []client.OauthProviderParams{
		{ProviderName: "google", OidcClaims: &client.OidcClaims{Iss: "https://accounts.google.com", Sub: "1234", Aud: "app-1"}},
		{ProviderName: "okta", OidcClaims: &client.OidcClaims{Iss: "https://acme.okta.com", Sub: "00u1", Aud: "app-2"}},
	} {
		if _, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-root",
			OauthProviders: []client.OauthProviderParams{p}}); err != nil {
			t.Fatal(err)
		}
	}
}

// readImportBlocksOf reads custody_import_blocks with the filters given
// (nil for the default), through a fresh provider data as one command
// would, and returns the model and the requests it sent.
func readImportBlocksOf(t *testing.T, e *accEmulator, typeNames, exclude []string) (importBlocksModel, map[string]int) {
	t.Helper()
	m := importBlocksModel{ResourceTypes: stringSetOrNull(typeNames), ExcludeIDs: stringSetOrNull(exclude)}
	before := e.srv.RequestCounts()
	var diags diag.Diagnostics
	readImportBlocks(t.Context(), &dataSourceBase{pd: newProviderData(e.client, 0)}, &m, &diags)
	if diags.HasError() {
		t.Fatalf("read: %v", diags)
	}
	sent := map[string]int{}
	for op, n := range e.srv.RequestCounts() {
		if d := n - before[op]; d != 0 {
			sent[op] = d
		}
	}
	return m, sent
}

func stringSetOrNull(s []string) types.Set {
	if s == nil {
		return types.SetNull(types.StringType)
	}
	var vs []attr.Value
	for _, v := range s {
		vs = append(vs, types.StringValue(v))
	}
	return types.SetValueMust(types.StringType, vs)
}

// TestAccImportBlocks_oneRequestPerList: however many objects, the data
// source sends one request per list (two allowlist reads: the
// organization's and the provider's key's) and reads no object alone.
func TestAccImportBlocks_oneRequestPerList(t *testing.T) {
	e := newAccEmulator(t)
	adoptOrg(t, e)
	m, sent := readImportBlocksOf(t, e, nil, nil)
	want := map[string]int{"query/whoami": 1, "query/list_policies": 1, "query/list_private_key_tags": 1,
		"query/list_webhook_endpoints": 1, "query/get_ip_allowlist": 2, "query/get_oauth_providers": 1}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("requests sent: %v, want %v", sent, want)
	}
	if got, want := len(m.Blocks), 300+30+10+2+1+2; got != want {
		t.Errorf("%d blocks, want %d", got, want)
	}
}

// TestAccImportBlocks_filters: resource_types narrows the types read (and
// the requests sent), exclude_ids leaves objects out, by import id or, for
// an OAuth provider, by provider id.
func TestAccImportBlocks_filters(t *testing.T) {
	e := newAccEmulator(t)
	ctx := t.Context()
	made, err := e.client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "grant", Effect: client.EffectAllow}, {PolicyName: "Signing", Effect: client.EffectAllow}}})
	if err != nil {
		t.Fatal(err)
	}
	grant := made.Result.PolicyIDs[0]
	prov, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-root", OauthProviders: []client.OauthProviderParams{
		{ProviderName: "google", OidcClaims: &client.OidcClaims{Iss: "https://accounts.google.com", Sub: "1", Aud: "a"}}}})
	if err != nil {
		t.Fatal(err)
	}

	m, sent := readImportBlocksOf(t, e, []string{"custody_policy"}, []string{grant})
	if len(m.Blocks) != 1 || m.Blocks[0].To != "custody_policy.signing" || m.Blocks[0].Name != "Signing" || m.Blocks[0].Type != "custody_policy" {
		t.Errorf("blocks %+v, want only custody_policy.signing", m.Blocks)
	}
	if strings.Contains(m.HCL.ValueString(), grant) {
		t.Errorf("the excluded grant is in hcl:\n%s", m.HCL.ValueString())
	}
	if want := map[string]int{"query/list_policies": 1}; !reflect.DeepEqual(sent, want) {
		t.Errorf("requests sent: %v, want %v", sent, want)
	}

	m, _ = readImportBlocksOf(t, e, nil, []string{prov.Result.ProviderIDs[0], "organization"})
	var tos []string
	for _, b := range m.Blocks {
		tos = append(tos, b.To)
	}
	// No allowlist exists, so none is found; the provider is left out.
	if want := []string{"custody_organization_name.acceptance_org", "custody_policy.grant", "custody_policy.signing"}; !reflect.DeepEqual(tos, want) {
		t.Errorf("blocks to %v, want %v", tos, want)
	}
}

// TestAccImportBlocks_exclusive: exclusive_hcl declares whole each
// collection the data source read, imported by the organization's (or the
// user's) id, its set referencing each adopted object and listing by
// literal id, with why, each object exclude_ids left out; a type
// resource_types leaves out gets no exclusive resource, since its
// collection was not read.
func TestAccImportBlocks_exclusive(t *testing.T) {
	e := newAccEmulator(t)
	ctx := t.Context()
	made, err := e.client.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "grant", Effect: client.EffectAllow}, {PolicyName: "Signing", Effect: client.EffectAllow}}})
	if err != nil {
		t.Fatal(err)
	}
	grant := made.Result.PolicyIDs[0]
	if _, err := e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "hot"}); err != nil {
		t.Fatal(err)
	}
	var okta string
	for _, p := range []client.OauthProviderParams{
		{ProviderName: "google", OidcClaims: &client.OidcClaims{Iss: "https://accounts.google.com", Sub: "1", Aud: "a"}},
		{ProviderName: "okta", OidcClaims: &client.OidcClaims{Iss: "https://acme.okta.com", Sub: "2", Aud: "b"}},
	} {
		prov, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-root",
			OauthProviders: []client.OauthProviderParams{p}})
		if err != nil {
			t.Fatal(err)
		}
		okta = prov.Result.ProviderIDs[0]
	}

	m, sent := readImportBlocksOf(t, e, nil, []string{grant, okta})
	text := m.ExclusiveHCL.ValueString()
	for _, want := range []string{
		"import {\n  to = custody_policies_exclusive.all\n  id = \"" + accOrg + "\"\n}\n" +
			"resource \"custody_policies_exclusive\" \"all\" {\n  policy_ids = [\n    custody_policy.signing.id,\n" +
			"    # policy \"grant\" (" + grant + "): left out by exclude_ids, as the grant that lets Terraform act is best left " +
			"outside the configuration Terraform manages; kept by its id\n    \"" + grant + "\",\n  ]\n}\n",
		"import {\n  to = custody_private_key_tags_exclusive.all\n  id = \"" + accOrg + "\"\n}\n" +
			"resource \"custody_private_key_tags_exclusive\" \"all\" {\n  private_key_tag_ids = [\n    custody_private_key_tag.hot.id,\n  ]\n}\n",
		"resource \"custody_webhook_endpoints_exclusive\" \"all\" {\n  endpoint_ids = []\n}\n",
		"import {\n  to = custody_oauth_providers_exclusive.root\n  id = \"user-root\"\n}\n" +
			"resource \"custody_oauth_providers_exclusive\" \"root\" {\n  user_id = \"user-root\"\n  provider_ids = [\n" +
			"    custody_oauth_provider.google.id,\n    # OAuth provider \"okta\" of user user-root (" + okta,
		"): left out by exclude_ids; kept by its id\n    \"" + okta + "\",\n  ]\n}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("exclusive_hcl lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\nresource "); n != 4 {
		t.Errorf("%d exclusive resources, want 4:\n%s", n, text)
	}
	// The same reads as hcl's: exclusive_hcl costs no request.
	want := map[string]int{"query/whoami": 1, "query/list_policies": 1, "query/list_private_key_tags": 1,
		"query/list_webhook_endpoints": 1, "query/get_ip_allowlist": 2, "query/get_oauth_providers": 1}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("requests sent: %v, want %v", sent, want)
	}

	m, _ = readImportBlocksOf(t, e, []string{"custody_policy", "custody_ip_allowlist"}, nil)
	text = m.ExclusiveHCL.ValueString()
	if strings.Count(text, "\nresource ") != 1 || !strings.Contains(text, "    custody_policy.grant.id,\n    custody_policy.signing.id,\n  ]\n") {
		t.Errorf("with resource_types policies and allowlists, exclusive_hcl is not custody_policies_exclusive alone, listing both:\n%s", text)
	}
	m, _ = readImportBlocksOf(t, e, []string{"custody_organization_name", "custody_ip_allowlist"}, nil)
	if text = m.ExclusiveHCL.ValueString(); text != "" {
		t.Errorf("without a collection, exclusive_hcl declares one:\n%s", text)
	}
}
