package provider

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/importblocks"
)

// TestRenderImportBlocks: custody_import_blocks's text parses as HCL, holds one import block
// per accepted object with to and id only, and for a refused policy a
// comment naming it and quoting the plan-time check, with no block.
// TestImportFinders: every type custody_import_blocks offers has a read,
// and no read is of a type it does not offer.
func TestImportFinders(t *testing.T) {
	for _, typ := range importblocks.Types {
		if importFinders[typ] == nil {
			t.Errorf("no finder for %s", typ)
		}
	}
	if len(importFinders) != len(importblocks.Types) {
		t.Errorf("%d finders for %d types", len(importFinders), len(importblocks.Types))
	}
}

// TestImportExclusives: each exclusive resource custody_import_blocks
// renders is one the provider serves, with the set (and user) attribute it
// writes, its members are a type the data source finds, and every
// exclusive resource the provider serves is rendered.
func TestImportExclusives(t *testing.T) {
	schemas := map[string]rschema.Schema{}
	for _, f := range resourceFactories {
		r := f()
		var meta resource.MetadataResponse
		r.Metadata(t.Context(), resource.MetadataRequest{ProviderTypeName: "custody"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(t.Context(), resource.SchemaRequest{}, &resp)
		schemas[meta.TypeName] = resp.Schema
	}
	rendered := map[string]bool{}
	for of, ex := range importblocks.Exclusives {
		rendered[ex.Type] = true
		if !slices.Contains(importblocks.Types, of) {
			t.Errorf("%s declares %s whole, which custody_import_blocks does not find", ex.Type, of)
		}
		s, ok := schemas[ex.Type]
		if !ok {
			t.Errorf("the provider serves no %s", ex.Type)
			continue
		}
		for _, attr := range []string{ex.IDsAttr, ex.UserAttr} {
			if a, ok := s.Attributes[attr]; attr != "" && (!ok || !a.IsRequired()) {
				t.Errorf("%s has no required attribute %s", ex.Type, attr)
			}
		}
	}
	// The data source reads every collection an exclusive resource claims.
	for typ := range schemas {
		if strings.HasSuffix(typ, "_exclusive") && !rendered[typ] {
			t.Errorf("custody_import_blocks renders no %s", typ)
		}
	}
}

func TestRenderImportBlocks(t *testing.T) {
	refused := client.Policy{PolicyID: "p-bad", PolicyName: "legacy", Effect: client.EffectAllow, Condition: "approvers.count() >= 2"}
	objs := []importblocks.Object{
		{Type: "custody_policy", ID: "p1", Name: "Signing", What: `policy "Signing" (p1)`},
		{Type: "custody_policy", ID: "p-bad", Name: "legacy", What: `policy "legacy" (p-bad)`, Refused: policyRefusal(t.Context(), policyResourceSchema(t.Context()), refused)},
		{Type: "custody_ip_allowlist", ID: "organization", Name: "organization", What: "the organization-level IP allowlist"},
	}
	if objs[1].Refused == "" {
		t.Fatal("the plan-time check accepts a condition that uses approvers")
	}
	text := importblocks.Render("header", importblocks.Addresses(objs))
	f, diags := hclsyntax.ParseConfig([]byte(text), "imports.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("rendered text is not HCL: %v\n%s", diags, text)
	}
	body := f.Body.(*hclsyntax.Body) //nolint:forcetypeassert // hclsyntax.ParseConfig's body
	var got []string
	for _, b := range body.Blocks {
		if b.Type != "import" || len(b.Body.Blocks) != 0 || len(b.Body.Attributes) != 2 ||
			b.Body.Attributes["to"] == nil || b.Body.Attributes["id"] == nil {
			t.Errorf("block %s is not an import block with to and id only", b.Type)
		}
		got = append(got, string(b.Body.Attributes["to"].Expr.Range().SliceBytes([]byte(text))))
	}
	if want := []string{"custody_ip_allowlist.organization", "custody_policy.signing"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("import blocks to %v, want %v\n%s", got, want, text)
	}
	for _, want := range []string{
		`# policy "legacy" (p-bad) has no import block: the provider's plan-time checks refuse its condition:`,
		"# Invalid policy condition expression: line 1, column 1: approvers is a keyword of the consensus field and cannot be used in condition",
		`# Fix it by hand, then import it with: terraform import custody_policy.legacy "p-bad"`,
		"# policy \"Signing\" (p1)\nimport {\n  to = custody_policy.signing\n  id = \"p1\"\n}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered text lacks %q:\n%s", want, text)
		}
	}
}

// TestPolicyRefusal: custody_policy's own validators decide, for the
// language and the limits alike; what the generated configuration leaves
// null (an empty condition or notes) is not checked.
func TestPolicyRefusal(t *testing.T) {
	s := policyResourceSchema(t.Context())
	ok := client.Policy{PolicyName: "Signing", Effect: client.EffectAllow, Condition: "activity.resource == 'PRIVATE_KEY'",
		Consensus: "approvers.count() >= 2", Time: "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"}
	if got := policyRefusal(t.Context(), s, ok); got != "" {
		t.Errorf("a valid policy is refused: %s", got)
	}
	if got := policyRefusal(t.Context(), s, client.Policy{PolicyName: "bare", Effect: client.EffectDeny}); got != "" {
		t.Errorf("a policy without condition, consensus, time or notes is refused: %s", got)
	}
	for _, tc := range []struct {
		what string
		p    client.Policy
		want string
	}{
		{"blank name", client.Policy{PolicyName: "   ", Effect: client.EffectAllow}, "refuse its name:"},
		{"long name", client.Policy{PolicyName: strings.Repeat("n", 257), Effect: client.EffectAllow}, "refuse its name:"},
		{"consensus in time", client.Policy{PolicyName: "x", Effect: client.EffectAllow, Time: "approvers.count() >= 2"},
			"refuse its time:\nInvalid policy time expression: line 1, column 1"},
		{"condition in consensus", client.Policy{PolicyName: "x", Effect: client.EffectAllow, Consensus: "activity.resource == 'X'"},
			"refuse its consensus:\nInvalid policy consensus expression"},
	} {
		if got := policyRefusal(t.Context(), s, tc.p); !strings.Contains(got, tc.want) {
			t.Errorf("%s: refusal %q, want it to contain %q", tc.what, got, tc.want)
		}
	}
}
