package provider

import (
	"os"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
)

// docsSection is the text of docs/index.md under heading, up to the next
// heading.
func docsSection(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/index.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(raw), "\n"+heading+"\n")
	if !found {
		t.Fatalf("docs/index.md has no %q", heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// TestDocsNameTheLockoutTypes: the docs name every activity type the
// lockout check decides, and the batching section every type a create or
// delete may go alone on. scripts/check-docs.sh checks the same four names
// in the docs; this holds them to the code.
func TestDocsNameTheLockoutTypes(t *testing.T) {
	guardDocs := docsSection(t, "### The policy lockout check")
	for _, typ := range lockout.ManagedTypes {
		if !strings.Contains(guardDocs, "`"+typ+"`") {
			t.Errorf("the lockout check decides %s, which its section of docs/index.md does not name", typ)
		}
	}
	batching := docsSection(t, "## Batching: one approval per change")
	for _, typ := range lockout.BatchTypes {
		op := strings.ToLower(strings.TrimPrefix(typ, "ACTIVITY_TYPE_"))
		if !strings.Contains(batching, "`"+op+"`") {
			t.Errorf("a %s may go alone, which the batching section of docs/index.md does not name (`%s`)", typ, op)
		}
	}
}
