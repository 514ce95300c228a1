package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// terraformName is what Terraform accepts as a resource name, narrowed to
// ASCII: a letter or `_`, then letters, digits, `_` and `-`.
var terraformName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func TestImportName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"Signing", "signing"},
		{"signing!", "signing"},
		{"Cold storage: frozen", "cold_storage_frozen"},
		{"  key-export  ", "key_export"},
		{"2fa required", "policy_2fa_required"},
		{"Подпись", "policy"},
		{"署名", "policy"},
		{"", "policy"},
		{"___", "policy"},
		{"ÉTÉ 2024", "t_2024"},
	} {
		got := importName(tc.name, "policy")
		if got != tc.want {
			t.Errorf("importName(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if !terraformName.MatchString(got) {
			t.Errorf("importName(%q) = %q is not a valid resource name", tc.name, got)
		}
	}
}

// TestImportAddresses_distinct: names that come out alike get suffixes
// that collide with no other object's name, and each address is valid.
func TestImportAddresses_distinct(t *testing.T) {
	objs := []importObject{
		{Type: "custody_policy", ID: "p1", Name: "Signing"},
		{Type: "custody_policy", ID: "p2", Name: "signing!"},
		{Type: "custody_policy", ID: "p3", Name: "signing_2"},
		{Type: "custody_policy", ID: "p4", Name: "Подпись"},
		{Type: "custody_policy", ID: "p5", Name: "署名"},
		{Type: "custody_policy", ID: "p6", Name: "policy"},
		{Type: "custody_private_key_tag", ID: "t1", Name: "signing"},
	}
	blocks := importAddresses(objs)
	seen := map[string]string{}
	for _, b := range blocks {
		if prev, dup := seen[b.To]; dup {
			t.Errorf("%s and %s share the address %s", prev, b.ID, b.To)
		}
		seen[b.To] = b.ID
		typ, name, _ := strings.Cut(b.To, ".")
		if typ != b.Type || !terraformName.MatchString(name) {
			t.Errorf("%s: address %q is not a valid address of a %s", b.ID, b.To, b.Type)
		}
	}
	want := map[string]string{
		"p1": "custody_policy.signing", "p2": "custody_policy.signing_3", "p3": "custody_policy.signing_2",
		"p6": "custody_policy.policy", "t1": "custody_private_key_tag.signing",
	}
	for _, b := range blocks {
		if w, ok := want[b.ID]; ok && b.To != w {
			t.Errorf("%s (%q): address %s, want %s", b.ID, b.Name, b.To, w)
		}
	}
	for i := 1; i < len(blocks); i++ {
		if blocks[i-1].To > blocks[i].To {
			t.Errorf("blocks not sorted: %s before %s", blocks[i-1].To, blocks[i].To)
		}
	}
	// The same objects in another order get the same addresses.
	again := importAddresses([]importObject{objs[6], objs[5], objs[4], objs[3], objs[2], objs[1], objs[0]})
	for i := range blocks {
		if blocks[i].To != again[i].To || blocks[i].ID != again[i].ID {
			t.Errorf("order-dependent: %s=%s vs %s=%s", blocks[i].ID, blocks[i].To, again[i].ID, again[i].To)
		}
	}
}

// TestRenderImportBlocks: the text parses as HCL, holds one import block
// per accepted object with to and id only, and for a refused policy a
// comment naming it and quoting the plan-time check, with no block.
func TestRenderImportBlocks(t *testing.T) {
	refused := client.Policy{PolicyID: "p-bad", PolicyName: "legacy", Effect: client.EffectAllow, Condition: "approvers.count() >= 2"}
	objs := []importObject{
		{Type: "custody_policy", ID: "p1", Name: "Signing", What: `policy "Signing" (p1)`},
		{Type: "custody_policy", ID: "p-bad", Name: "legacy", What: `policy "legacy" (p-bad)`, Refused: policyRefusal(t.Context(), policyResourceSchema(t.Context()), refused)},
		{Type: "custody_ip_allowlist", ID: "organization", Name: "organization", What: "the organization-level IP allowlist"},
	}
	if objs[1].Refused == "" {
		t.Fatal("the plan-time check accepts a condition that uses approvers")
	}
	text := renderImportBlocks("header", importAddresses(objs))
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

func TestHCLString(t *testing.T) {
	if got, want := hclString(`a${b}%{c}"d`), `"a$${b}%%{c}\"d"`; got != want {
		t.Errorf("hclString = %s, want %s", got, want)
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
