package provider

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// importObject is one object of the organization that a resource of this
// provider can manage, as custody_import_blocks found it.
type importObject struct {
	Type string // the resource type, e.g. custody_policy
	ID   string // the import id the resource's ImportState takes
	Name string // the object's own name, which its address is made from
	What string // what the comment calls it, e.g. `policy "Signing" (id)`
	// Refused, when set, is why the object gets a comment instead of a
	// block: the configuration Terraform would generate for it fails the
	// provider's plan-time checks.
	Refused string
}

// importBlock is one rendered block: the address it imports to.
type importBlock struct {
	importObject
	To string // <type>.<name>
}

// importNamePrefix is put before a name that would otherwise be empty or
// start with a digit, per resource type.
var importNamePrefix = map[string]string{
	"custody_policy":            "policy",
	"custody_private_key_tag":   "tag",
	"custody_webhook_endpoint":  "webhook",
	"custody_ip_allowlist":      "allowlist",
	"custody_organization_name": "organization",
	"custody_oauth_provider":    "oauth",
}

// importName turns an object's name into a Terraform resource name:
// lower-case ASCII letters, digits and `_`, everything else (spaces,
// punctuation, letters of other scripts) becoming `_`, runs of `_` made
// one and trimmed at both ends. A result that is empty or starts with a
// digit gets prefix in front (`policy`, `policy_2fa`).
func importName(name, prefix string) string {
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

// importAddresses gives each object an address of its own: its type and
// importName, with `_2`, `_3`, ... after a name already taken by another
// object of the same type. Objects are named in the order of their
// names and ids, so the same organization always gets the same addresses.
// Refused objects get an address too (their comment names it), so that
// fixing one later does not rename the others.
func importAddresses(objs []importObject) []importBlock {
	type keyed struct {
		base string
		obj  importObject
	}
	ks := make([]keyed, len(objs))
	for i, o := range objs {
		ks[i] = keyed{importName(o.Name, importNamePrefix[o.Type]), o}
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
	out := make([]importBlock, 0, len(ks))
	for _, k := range ks {
		to := k.obj.Type + "." + k.base
		for n := 2; claimed[to]; n++ {
			cand := k.obj.Type + "." + k.base + "_" + strconv.Itoa(n)
			if !taken[cand] && !claimed[cand] {
				to = cand
			}
		}
		claimed[to] = true
		out = append(out, importBlock{importObject: k.obj, To: to})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].To < out[j].To })
	return out
}

// renderImportBlocks writes blocks as Terraform configuration: each object
// an import block (to and id only, which Terraform 1.5 and later read)
// after a comment naming it, or, when Refused, only comments that say why
// it has no block. header, when set, starts the text as a comment.
func renderImportBlocks(header string, blocks []importBlock) string {
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
		fmt.Fprintf(&b, "import {\n  to = %s\n  id = %s\n}\n", bl.To, hclString(bl.ID))
	}
	return b.String()
}

// writeComment writes text as `#` comment lines, one per line of text.
func writeComment(b *strings.Builder, text string) {
	for _, line := range strings.Split(text, "\n") {
		b.WriteString(strings.TrimRight("# "+line, " "))
		b.WriteString("\n")
	}
}

// hclString quotes s as an HCL string literal: Go's quoting, with the
// template sequences `${` and `%{` escaped.
func hclString(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}
