package importblocks

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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
		got := Name(tc.name, "policy")
		if got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if !terraformName.MatchString(got) {
			t.Errorf("Name(%q) = %q is not a valid resource name", tc.name, got)
		}
	}
}

// TestImportAddresses_distinct: names that come out alike get suffixes
// that collide with no other object's name, and each address is valid.
func TestImportAddresses_distinct(t *testing.T) {
	objs := []Object{
		{Type: "custody_policy", ID: "p1", Name: "Signing"},
		{Type: "custody_policy", ID: "p2", Name: "signing!"},
		{Type: "custody_policy", ID: "p3", Name: "signing_2"},
		{Type: "custody_policy", ID: "p4", Name: "Подпись"},
		{Type: "custody_policy", ID: "p5", Name: "署名"},
		{Type: "custody_policy", ID: "p6", Name: "policy"},
		{Type: "custody_private_key_tag", ID: "t1", Name: "signing"},
	}
	blocks := Addresses(objs)
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
	again := Addresses([]Object{objs[6], objs[5], objs[4], objs[3], objs[2], objs[1], objs[0]})
	for i := range blocks {
		if blocks[i].To != again[i].To || blocks[i].ID != again[i].ID {
			t.Errorf("order-dependent: %s=%s vs %s=%s", blocks[i].ID, blocks[i].To, again[i].ID, again[i].To)
		}
	}
}

// TestRender: the text parses as HCL, holds one import block per accepted
// object with to and id only, and for a refused object comments naming
// it and saying why, with no block. (The provider's test of the data
// source renders a refusal of its plan-time checks.)
func TestRender(t *testing.T) {
	objs := []Object{
		{Type: "custody_policy", ID: "p1", Name: "Signing", What: `policy "Signing" (p1)`},
		{Type: "custody_policy", ID: "p-bad", Name: "legacy", What: `policy "legacy" (p-bad)`, Refused: "the checks refuse it:\nline two"},
		{Type: "custody_ip_allowlist", ID: "organization", Name: "organization", What: "the organization-level IP allowlist"},
		{Type: "custody_private_key_tag", ID: "t\x00\a${x}%{y}\"\\é", Name: "odd", What: "a tag whose id needs every escape"},
	}
	text := Render("header", Addresses(objs))
	f, diags := hclsyntax.ParseConfig([]byte(text), "imports.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("rendered text is not HCL: %v\n%s", diags, text)
	}
	body := f.Body.(*hclsyntax.Body) //nolint:forcetypeassert // hclsyntax.ParseConfig's body
	ids := map[string]string{}
	for _, b := range body.Blocks {
		if b.Type != "import" || len(b.Body.Blocks) != 0 || len(b.Body.Attributes) != 2 ||
			b.Body.Attributes["to"] == nil || b.Body.Attributes["id"] == nil {
			t.Fatalf("block %s is not an import block with to and id only", b.Type)
		}
		id, diags := b.Body.Attributes["id"].Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("id of %s: %v", text, diags)
		}
		ids[string(b.Body.Attributes["to"].Expr.Range().SliceBytes([]byte(text)))] = id.AsString()
	}
	want := map[string]string{"custody_ip_allowlist.organization": "organization", "custody_policy.signing": "p1",
		"custody_private_key_tag.odd": objs[3].ID}
	if len(ids) != len(want) {
		t.Errorf("import blocks %v, want %v\n%s", ids, want, text)
	}
	for to, id := range want {
		if ids[to] != id {
			t.Errorf("the block to %s imports %q, want %q\n%s", to, ids[to], id, text)
		}
	}
	for _, w := range []string{"# header\n", `# policy "legacy" (p-bad) has no import block: the checks refuse it:`, "# line two\n",
		`# Fix it by hand, then import it with: terraform import custody_policy.legacy "p-bad"`,
		"# policy \"Signing\" (p1)\nimport {\n  to = custody_policy.signing\n  id = \"p1\"\n}\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("rendered text lacks %q:\n%s", w, text)
		}
	}
}

// TestExclude: an object is left out by its id or its other id, and an
// empty id in the set leaves out no object that has no other id.
func TestExclude(t *testing.T) {
	objs := []Object{{ID: "p1"}, {ID: "u/o1", OtherID: "o1"}, {ID: "u/o2", OtherID: "o2"}, {ID: "p2"}}
	ids := func(os []Object) string {
		var out []string
		for _, o := range os {
			out = append(out, o.ID)
		}
		return strings.Join(out, ",")
	}
	kept, excluded := Exclude(objs, []string{"p2", "o1", ""})
	if ids(kept) != "p1,u/o2" || ids(excluded) != "u/o1,p2" {
		t.Errorf("Exclude kept %s and left out %s, want p1,u/o2 and u/o1,p2", ids(kept), ids(excluded))
	}
}
