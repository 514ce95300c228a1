// Package importblocks names and renders the import blocks that
// custody_import_blocks writes: an address of its own for each object
// (Name, Addresses) and the text (Render). Finding the objects, and
// deciding which the provider's plan-time checks refuse, is the data
// source's, in internal/provider.
package importblocks

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/hclquote"
)

// Object is one object of the organization that a resource of this
// provider can manage, as custody_import_blocks found it.
type Object struct {
	Type string // the resource type, e.g. custody_policy
	ID   string // the import id the resource's ImportState takes
	Name string // the object's own name, which its address is made from
	What string // what the comment calls it, e.g. `policy "Signing" (id)`
	// Refused, when set, is why the object gets a comment instead of a
	// block: the configuration Terraform would generate for it fails the
	// provider's plan-time checks.
	Refused string
	// OtherID is a second id that exclude_ids may name it by (an OAuth
	// provider's own id), or "".
	OtherID string
	// Member is the id its exclusive resource's set lists it by, when
	// not ID (an OAuth provider's own id), or "".
	Member string
	// User is the id of the user whose collection holds it (an OAuth
	// provider's), or "" for the organization's.
	User string
}

// Types are the resource types custody_import_blocks finds objects of, in
// the order it reads them.
var Types = []string{
	"custody_policy",
	"custody_private_key_tag",
	"custody_webhook_endpoint",
	"custody_ip_allowlist",
	"custody_organization_name",
	"custody_oauth_provider",
}

// Header starts the text custody_import_blocks renders.
const Header = "Written by the custody_import_blocks data source. Next:\n" +
	"  terraform plan -generate-config-out=generated.tf\n" +
	"then write its exclusive_hcl beside this file: it declares each collection found here whole.\n" +
	"Not found here (no query lists them): other users' OAuth providers, other API keys' IP allowlists."

// Exclude splits objs into those whose ID or OtherID ids names
// (excluded) and the rest (kept), each in the order of objs.
func Exclude(objs []Object, ids []string) (kept, excluded []Object) {
	for _, o := range objs {
		if slices.Contains(ids, o.ID) || (o.OtherID != "" && slices.Contains(ids, o.OtherID)) {
			excluded = append(excluded, o)
		} else {
			kept = append(kept, o)
		}
	}
	return kept, excluded
}

// Block is one rendered block: the address it imports to.
type Block struct {
	Object
	To string // <type>.<name>
}

// namePrefix is put before a name that would otherwise be empty or
// start with a digit, per resource type.
var namePrefix = map[string]string{
	"custody_policy":            "policy",
	"custody_private_key_tag":   "tag",
	"custody_webhook_endpoint":  "webhook",
	"custody_ip_allowlist":      "allowlist",
	"custody_organization_name": "organization",
	"custody_oauth_provider":    "oauth",
}

// Name turns an object's name into a Terraform resource name:
// lower-case ASCII letters, digits and `_`, everything else (spaces,
// punctuation, letters of other scripts) becoming `_`, runs of `_` made
// one and trimmed at both ends. A result that is empty or starts with a
// digit gets prefix in front (`policy`, `policy_2fa`).
func Name(name, prefix string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	s := strings.Trim(b.String(), "_")
	switch {
	case s == "":
		return prefix
	case s[0] >= '0' && s[0] <= '9':
		return prefix + "_" + s
	}
	return s
}

// Addresses gives each object an address of its own: its type and
// Name, with `_2`, `_3`, ... after a name already taken by another
// object of the same type. Objects are named in the order of their
// names and ids, so the same organization always gets the same addresses.
// Refused objects get an address too (their comment names it), so that
// fixing one later does not rename the others.
func Addresses(objs []Object) []Block {
	type keyed struct {
		base string
		obj  Object
	}
	ks := make([]keyed, len(objs))
	for i, o := range objs {
		ks[i] = keyed{Name(o.Name, namePrefix[o.Type]), o}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.obj.Type != b.obj.Type {
			return a.obj.Type < b.obj.Type
		}
		if a.base != b.base {
			return a.base < b.base
		}
		if a.obj.Name != b.obj.Name {
			return a.obj.Name < b.obj.Name
		}
		return a.obj.ID < b.obj.ID
	})
	// A base name taken by an object is reserved first, so that a name
	// such as signing_2 keeps its address when another "signing" needs
	// a suffix.
	taken := map[string]bool{}
	for _, k := range ks {
		taken[k.obj.Type+"."+k.base] = true
	}
	claimed := map[string]bool{}
	out := make([]Block, 0, len(ks))
	for _, k := range ks {
		to := k.obj.Type + "." + k.base
		for n := 2; claimed[to]; n++ {
			cand := k.obj.Type + "." + k.base + "_" + strconv.Itoa(n)
			if !taken[cand] && !claimed[cand] {
				to = cand
			}
		}
		claimed[to] = true
		out = append(out, Block{Object: k.obj, To: to})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].To < out[j].To })
	return out
}

// Render writes blocks as Terraform configuration: each object
// an import block (to and id only, which Terraform 1.5 and later read)
// after a comment naming it, or, when Refused, only comments that say why
// it has no block. header, when set, starts the text as a comment.
func Render(header string, blocks []Block) string {
	var b strings.Builder
	if header != "" {
		writeComment(&b, header)
		b.WriteString("\n")
	}
	for i, bl := range blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		if bl.Refused != "" {
			writeComment(&b, fmt.Sprintf("%s has no import block: %s", bl.What, bl.Refused))
			writeComment(&b, fmt.Sprintf("Fix it by hand, then import it with: terraform import %s %s", bl.To, strconv.Quote(bl.ID)))
			continue
		}
		writeComment(&b, bl.What)
		fmt.Fprintf(&b, "import {\n  to = %s\n  id = %s\n}\n", bl.To, hclquote.String(bl.ID))
	}
	return b.String()
}

// writeComment writes text as `#` comment lines, one per line of text.
func writeComment(b *strings.Builder, text string) { writeIndentedComment(b, "", text) }
