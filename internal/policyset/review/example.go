package review

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// example renders a request as the HCL object that
// provider::custody::policy_decision takes as its request argument, on one
// line: type, approvers, params, private_key, then the keyword attributes
// (eth = { tx = {...} }), every object's keys sorted.
func example(req policyset.Request) string {
	var b strings.Builder
	b.Grow(256)
	b.WriteString("{ type = ")
	writeHCLString(&b, req.Type)
	b.WriteString(", approvers = [")
	for i, u := range req.Approvers {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{ id = ")
		writeHCLString(&b, u.ID)
		if len(u.Tags) > 0 {
			b.WriteString(", tags = [")
			for k, t := range u.Tags {
				if k > 0 {
					b.WriteString(", ")
				}
				writeHCLString(&b, t)
			}
			b.WriteByte(']')
		}
		b.WriteString(" }")
	}
	b.WriteString("]")
	// The credentials the approvers approved with, one each, when a
	// policy reads them: user_id and type always, the rest where set.
	if len(req.Credentials) > 0 {
		creds := make([]any, len(req.Credentials))
		for i, c := range req.Credentials {
			m := map[string]any{"user_id": c.UserID, "type": c.Type}
			for k, v := range map[string]string{"id": c.ID, "credential_id": c.CredentialID, "public_key": c.PublicKey} {
				if v != "" {
					m[k] = v
				}
			}
			creds[i] = m
		}
		b.WriteString(", credentials = ")
		writeHCLValue(&b, creds)
	}
	if !req.Now.IsZero() {
		b.WriteString(", time = ")
		writeHCLString(&b, req.Now.UTC().Format(time.RFC3339Nano))
	}
	if len(req.Params) > 0 {
		b.WriteString(", params = ")
		writeHCLValue(&b, req.Params)
	}
	if k := req.PrivateKey; k != nil {
		tags := make([]any, len(k.Tags))
		for i, t := range k.Tags {
			tags[i] = t
		}
		key := map[string]any{"tags": tags}
		for name, v := range map[string]string{"id": k.ID, "label": k.Label} {
			if v != "" {
				key[name] = v
			}
		}
		for name, v := range map[string]bool{"imported": k.Imported, "exported": k.Exported} {
			if v {
				key[name] = v
			}
		}
		b.WriteString(", private_key = ")
		writeHCLValue(&b, key)
	}
	// The keyword attributes, sorted by attribute (conditionKeywords'
	// order need not be): a dotted keyword's namespace gathers its keys.
	var attrs []kwAttr
	for _, kw := range conditionKeywords {
		v, ok := req.Keyword(kw)
		if !ok {
			continue
		}
		ns, inner, dotted := strings.Cut(kw, ".")
		if !dotted {
			attrs = append(attrs, kwAttr{name: kw, v: v})
			continue
		}
		i := slices.IndexFunc(attrs, func(a kwAttr) bool { return a.name == ns && a.ns != nil })
		if i < 0 {
			attrs = append(attrs, kwAttr{name: ns, ns: map[string]any{}})
			i = len(attrs) - 1
		}
		attrs[i].ns[inner] = v
	}
	slices.SortStableFunc(attrs, func(a, b kwAttr) int { return strings.Compare(a.name, b.name) })
	for _, a := range attrs {
		b.WriteString(", ")
		b.WriteString(a.name)
		b.WriteString(" = ")
		if a.ns != nil {
			writeHCLValue(&b, a.ns)
		} else {
			writeHCLValue(&b, a.v)
		}
	}
	b.WriteString(" }")
	return b.String()
}

// conditionKeywords are the catalogue's, read once.
var conditionKeywords = policylang.ConditionKeywords()

// kwAttr is one keyword attribute of an example: a keyword's value, or a
// namespace's keys (ns).
type kwAttr struct {
	name string
	v    any
	ns   map[string]any
}

// maxExact is 2^53: larger integers are written as decimal strings, since
// Terraform's numbers would round them on the way.
var maxExact = new(big.Int).Lsh(big.NewInt(1), 53)

// writeHCLValue writes v as an HCL value: numbers beyond maxExact as
// decimal strings, maps as objects with their keys sorted.
func writeHCLValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		writeHCLString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case *big.Int:
		if x.CmpAbs(maxExact) > 0 {
			writeHCLString(b, x.String())
		} else {
			b.WriteString(x.String())
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeHCLValue(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteString("{ ")
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeHCLKey(b, k)
			b.WriteString(" = ")
			writeHCLValue(b, x[k])
		}
		b.WriteString(" }")
	default:
		writeHCLString(b, fmt.Sprint(v))
	}
}

// writeHCLKey writes an object key: bare when HCL reads it as an
// identifier, else quoted.
func writeHCLKey(b *strings.Builder, k string) {
	for i, r := range k {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') && r != '-' {
			writeHCLString(b, k)
			return
		}
	}
	if k == "" {
		b.WriteString(`""`)
		return
	}
	b.WriteString(k)
}

// writeHCLString writes s quoted with HCL's escapes; ${ and %{ are doubled
// so that Terraform reads them as text, not as a template.
func writeHCLString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteRune(r)
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
