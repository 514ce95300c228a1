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
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
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
	// The approvers: id always, tags, email and alias where set.
	users := make([]any, len(req.Approvers))
	for i, u := range req.Approvers {
		m := map[string]any{"id": u.ID}
		if len(u.Tags) > 0 {
			m["tags"] = stringsAsList(u.Tags)
		}
		for k, v := range map[string]string{"email": u.Email, "alias": u.Alias} {
			if v != "" {
				m[k] = v
			}
		}
		users[i] = m
	}
	b.WriteString(", approvers = ")
	writeHCLValue(&b, users)
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
		key := map[string]any{"tags": stringsAsList(k.Tags)}
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
		writeHCLList(b, x)
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

// stringsAsList is a list of strings as writeHCLValue takes lists.
func stringsAsList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// writeHCLList writes a list: element by element, or, when it is longer
// than symbolic.LongList (a witness grown for a count: 70,001 user ids),
// by runs. A run is elements alike but for their own index at the end of
// a string ("approver-7" at index 7), written once as a for expression
// over the indexes; the parts are joined by concat. A witness's example
// stays one line of a few hundred characters, which Terraform reads back
// as the same list.
func writeHCLList(b *strings.Builder, x []any) {
	if len(x) <= symbolic.LongList {
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeHCLValue(b, e)
		}
		b.WriteByte(']')
		return
	}
	texts, shapes := make([]string, len(x)), make([]string, len(x))
	for i, e := range x {
		var t strings.Builder
		writeHCLValue(&t, e)
		texts[i] = t.String()
		shapes[i] = byIndex(texts[i], i)
	}
	var parts, single []string
	flush := func() {
		if len(single) > 0 {
			parts = append(parts, "["+strings.Join(single, ", ")+"]")
			single = nil
		}
	}
	for i := 0; i < len(x); {
		j := i + 1
		for j < len(x) && shapes[j] == shapes[i] {
			j++
		}
		if j-i >= minRun {
			flush()
			parts = append(parts, runParts(i, j, shapes[i])...)
		} else {
			single = append(single, texts[i:j]...)
		}
		i = j
	}
	flush()
	if len(parts) == 1 {
		b.WriteString(parts[0])
		return
	}
	b.WriteString("concat(" + strings.Join(parts, ", ") + ")")
}

// minRun is the fewest alike elements written as a for expression.
const minRun = 8

// rangeMax is the most values Terraform's range gives.
const rangeMax = 1024

// byIndex is an element's HCL with each string that ends in "-i", i its
// own index, ending in "-${i}" instead: the element as a for expression
// over the indexes writes it. Literal "${" is escaped as "$${", so the
// template is the only one.
func byIndex(text string, i int) string {
	return strings.ReplaceAll(text, "-"+strconv.Itoa(i)+`"`, `-${i}"`)
}

// runParts are the for expressions that write the elements from..to
// (exclusive), each shaped as shape: blocks of rangeMax, a flatten of
// up to rangeMax of them where the elements are no lists (flatten would
// open those too).
func runParts(from, to int, shape string) []string {
	var out []string
	for to-from >= 2*rangeMax && !strings.HasPrefix(shape, "[") {
		blocks := min((to-from)/rangeMax, rangeMax)
		out = append(out, fmt.Sprintf("flatten([for h in range(%d) : [for i in range(%d + h * %d, %d + h * %d + %d) : %s]])",
			blocks, from, rangeMax, from, rangeMax, rangeMax, shape))
		from += blocks * rangeMax
	}
	for from < to {
		n := min(to-from, rangeMax)
		out = append(out, fmt.Sprintf("[for i in range(%d, %d) : %s]", from, from+n, shape))
		from += n
	}
	return out
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
