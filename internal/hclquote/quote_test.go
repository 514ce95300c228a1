package hclquote

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// parseBack reads quoted as the id of an import block, as Terraform would,
// and returns the string it holds.
func parseBack(t *testing.T, quoted string) string {
	t.Helper()
	src := "import {\n  to = custody_policy.x\n  id = " + quoted + "\n}\n"
	f, diags := hclsyntax.ParseConfig([]byte(src), "imports.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s does not parse as HCL: %v", src, diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "import"}}})
	if diags.HasErrors() || len(content.Blocks) != 1 {
		t.Fatalf("%s is not one import block: %v", src, diags)
	}
	attrs, diags := content.Blocks[0].Body.JustAttributes()
	var id string
	if !diags.HasErrors() {
		diags = gohcl.DecodeExpression(attrs["id"].Expr, nil, &id)
	}
	if diags.HasErrors() {
		t.Fatalf("the id of %s does not evaluate without variables: %v", src, diags)
	}
	return id
}

// TestStringRoundTrip: every control character (0x00-0x1f and 0x7f),
// the quote, the backslash, both template introducers and non-ASCII text
// quote to a literal that the hcl library parses back to the string.
func TestStringRoundTrip(t *testing.T) {
	cases := []string{
		"", `"`, `\`, `\\`, `\"`, "${", "%{", "$${", "%%{", "${var.x}", "%{ if true }x%{ endif }", "$", "%", "a$b%c",
		"é", "Подпись", "署名", "🔑", "id\u00a0x", "\u200b", "\u2028", "p-123",
	}
	var every strings.Builder
	for c := rune(0); c < 0x20; c++ {
		cases = append(cases, string(c), "id"+string(c)+"x")
		every.WriteRune(c)
	}
	cases = append(cases, "\x7f", "id\x7fx")
	every.WriteString("\x7f\"\\${%{é署名")
	cases = append(cases, every.String())
	for _, s := range cases {
		quoted := String(s)
		if got := parseBack(t, quoted); got != s {
			t.Errorf("String(%q) = %s, which parses back as %q", s, quoted, got)
		}
		if strings.ContainsAny(quoted, "\x00\a\b\f\v\x7f\n\r\t") {
			t.Errorf("String(%q) = %q holds a raw control character", s, quoted)
		}
	}
}

// The escapes are HCL's, not Go's: no \x, \a or \0.
func TestStringEscapes(t *testing.T) {
	for s, want := range map[string]string{
		`a${b}%{c}"d`: `"a$${b}%%{c}\"d"`,
		"\x00":        `"\u0000"`,
		"\a":          `"\u0007"`,
		"\x7f":        `"\u007f"`,
		"\n\r\t":      `"\n\r\t"`,
		`\`:           `"\\"`,
	} {
		if got := String(s); got != want {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}
