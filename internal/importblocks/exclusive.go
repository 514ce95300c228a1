package importblocks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/hclquote"
)

// Exclusive is the resource that declares a collection of objects of one
// type whole: anything in the collection that its set does not list is
// planned for removal.
type Exclusive struct {
	Type    string // the exclusive resource type, e.g. custody_policies_exclusive
	IDsAttr string // its set of ids, e.g. policy_ids
	// UserAttr names the user whose collection it declares ("user_id"),
	// when the collection is one user's; "" for the organization's.
	UserAttr string
	What     string // the collection, in words: "policies"
}

// Exclusives are the exclusive resources of the types whose collections
// custody_import_blocks reads whole, by the type of their members. The
// other types (the organization's name, the IP allowlists) are single
// objects, not collections.
var Exclusives = map[string]Exclusive{
	"custody_policy":           {Type: "custody_policies_exclusive", IDsAttr: "policy_ids", What: "policies"},
	"custody_private_key_tag":  {Type: "custody_private_key_tags_exclusive", IDsAttr: "private_key_tag_ids", What: "private key tags"},
	"custody_webhook_endpoint": {Type: "custody_webhook_endpoints_exclusive", IDsAttr: "endpoint_ids", What: "webhook endpoints"},
	"custody_oauth_provider": {Type: "custody_oauth_providers_exclusive", IDsAttr: "provider_ids", UserAttr: "user_id",
		What: "OAuth providers"},
}

// Whole is a collection custody_import_blocks read whole: every object of
// type Of that the organization (or one user) has, none left unread.
// Only such a collection gets an exclusive resource: one whose set could
// miss an object nobody looked at would plan that object's removal.
type Whole struct {
	Of string // the type of its members, a key of Exclusives
	// ID is the exclusive resource's import id: the organization id, or
	// the id of the user whose collection it is.
	ID   string
	User string // the user's name, for a user's collection; "" for the organization's
}

// ExclusiveHeader starts the text RenderExclusive renders.
const ExclusiveHeader = "Written by the custody_import_blocks data source (exclusive_hcl). Each collection it read whole is\n" +
	"declared whole: its exclusive resource plans the removal of anything its set does not list, such as an object\n" +
	"made outside Terraform later. Each set lists every object found: the adopted ones by reference, the ones left\n" +
	"out by literal id (a comment says why), so the apply that adopts the organization removes nothing.\n" +
	"The references name the resources that terraform plan -generate-config-out writes: add this file once\n" +
	"generated.tf exists."

// leftOutBecause is why an object found is listed by literal id.
func leftOutBecause(b Block) string {
	if b.Refused != "" {
		reason, _, _ := strings.Cut(b.Refused, "\n")
		return fmt.Sprintf("no import block, since %s; kept by its id until it is fixed and imported "+
			"(then reference %s.id instead)", strings.TrimSuffix(reason, ":"), b.To)
	}
	if b.Type == "custody_policy" {
		return "left out by exclude_ids, as the grant that lets Terraform act is best left outside the configuration " +
			"Terraform manages; kept by its id"
	}
	return "left out by exclude_ids; kept by its id"
}

// RenderExclusive writes, for each collection of wholes, an import block
// and a resource block of its exclusive resource, named `all` (a user's:
// after the user's name). The set lists every object of the collection
// found: each adopted one (a block not Refused) by reference to its
// address's id, each refused block and each excluded object by literal
// id after a comment saying why. Resources are sorted by address, their
// references by address, their literals by id. header, when set, starts
// the text as a comment; without a collection the text is empty.
// Excluded objects are those exclude_ids left out, which get no block.
func RenderExclusive(header string, wholes []Whole, blocks []Block, excluded []Object) string {
	type member struct {
		ref  string // <address>.id, or "" for a literal
		id   string // the literal
		what string // the comment above a literal
	}
	type resource struct {
		ex       Exclusive
		to, name string
		whole    Whole
		members  []member
	}
	in := func(w Whole, o Object) bool {
		return o.Type == w.Of && (Exclusives[w.Of].UserAttr == "" || o.User == w.ID)
	}
	var rs []resource
	taken := map[string]bool{}
	for _, w := range wholes {
		ex, ok := Exclusives[w.Of]
		if !ok {
			continue
		}
		name := "all"
		if ex.UserAttr != "" {
			name = Name(w.User, "user")
		}
		to := ex.Type + "." + name
		for n := 2; taken[to]; n++ {
			to = fmt.Sprintf("%s.%s_%d", ex.Type, name, n)
		}
		taken[to] = true
		r := resource{ex: ex, to: to, name: strings.TrimPrefix(to, ex.Type+"."), whole: w}
		var refs, lits []member
		for _, b := range blocks {
			switch {
			case !in(w, b.Object):
			case b.Refused == "":
				refs = append(refs, member{ref: b.To + ".id"})
			default:
				lits = append(lits, member{id: b.memberID(), what: b.What + ": " + leftOutBecause(b)})
			}
		}
		for _, o := range excluded {
			if in(w, o) {
				lits = append(lits, member{id: o.memberID(), what: o.What + ": " + leftOutBecause(Block{Object: o})})
			}
		}
		sort.SliceStable(refs, func(i, j int) bool { return refs[i].ref < refs[j].ref })
		sort.SliceStable(lits, func(i, j int) bool { return lits[i].id < lits[j].id })
		r.members = append(refs, lits...)
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].to < rs[j].to })
	if len(rs) == 0 {
		return "" // nothing declared: not even the header, which would say otherwise
	}

	var b strings.Builder
	if header != "" {
		writeComment(&b, header)
	}
	for _, r := range rs {
		b.WriteString("\n")
		what := "The organization's " + r.ex.What
		if r.ex.UserAttr != "" {
			what = fmt.Sprintf("The %s of user %q (%s)", r.ex.What, r.whole.User, r.whole.ID)
		}
		writeComment(&b, fmt.Sprintf("%s, declared whole: %s plans the removal of any that %s does not list.",
			what, r.ex.Type, r.ex.IDsAttr))
		fmt.Fprintf(&b, "import {\n  to = %s\n  id = %s\n}\n", r.to, hclquote.String(r.whole.ID))
		fmt.Fprintf(&b, "resource %q %q {\n", r.ex.Type, r.name)
		if r.ex.UserAttr != "" {
			fmt.Fprintf(&b, "  %s = %s\n", r.ex.UserAttr, hclquote.String(r.whole.ID))
		}
		if len(r.members) == 0 {
			fmt.Fprintf(&b, "  %s = []\n}\n", r.ex.IDsAttr)
			continue
		}
		fmt.Fprintf(&b, "  %s = [\n", r.ex.IDsAttr)
		for _, m := range r.members {
			if m.ref != "" {
				fmt.Fprintf(&b, "    %s,\n", m.ref)
				continue
			}
			writeIndentedComment(&b, "    ", m.what)
			fmt.Fprintf(&b, "    %s,\n", hclquote.String(m.id))
		}
		b.WriteString("  ]\n}\n")
	}
	return b.String()
}

// memberID is the id an exclusive resource's set lists the object by.
func (o Object) memberID() string {
	if o.Member != "" {
		return o.Member
	}
	return o.ID
}

// writeIndentedComment is writeComment with each line indented.
func writeIndentedComment(b *strings.Builder, indent, text string) {
	for _, line := range strings.Split(text, "\n") {
		b.WriteString(indent + strings.TrimRight("# "+line, " "))
		b.WriteString("\n")
	}
}
