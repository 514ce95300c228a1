package review

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// example renders a request as the HCL object that
// provider::custody::policy_decision takes as its request argument, on one
// line: type, approvers, params, private_key, then the keyword attributes
// (eth = { tx = {...} }), every object's keys sorted.
func example(req policyset.Request) string {
	var b strings.Builder
	b.WriteString("{ type = " + hclString(req.Type) + ", approvers = [")
	for i, u := range req.Approvers {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{ id = " + hclString(u.ID))
		if len(u.Tags) > 0 {
			b.WriteString(", tags = " + hclValue(languageValue(u.Tags)))
		}
		b.WriteString(" }")
	}
	b.WriteString("]")
	if len(req.Params) > 0 {
		b.WriteString(", params = " + hclValue(req.Params))
	}
	if k := req.PrivateKey; k != nil {
		key := map[string]any{"tags": languageValue(k.Tags)}
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
		b.WriteString(", private_key = " + hclValue(key))
	}
	attrs := map[string]any{}
	for _, kw := range conditionKeywords {
		v, ok := req.Keyword(kw)
		if !ok {
			continue
		}
		if ns, inner, dotted := strings.Cut(kw, "."); dotted {
			m, _ := attrs[ns].(map[string]any)
			if m == nil {
				m = map[string]any{}
				attrs[ns] = m
			}
			m[inner] = v
		} else {
			attrs[kw] = v
		}
	}
	for _, a := range sortedKeys(attrs) {
		b.WriteString(", " + a + " = " + hclValue(attrs[a]))
	}
	b.WriteString(" }")
	return b.String()
}

// maxExact is 2^53: larger integers are written as decimal strings, since
// Terraform's numbers would round them on the way.
var maxExact = new(big.Int).Lsh(big.NewInt(1), 53)

func hclValue(v any) string {
	switch x := v.(type) {
	case string:
		return hclString(x)
	case bool:
		return strconv.FormatBool(x)
	case *big.Int:
		if new(big.Int).Abs(x).Cmp(maxExact) > 0 {
			return hclString(x.String())
		}
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = hclValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = hclKey(k) + " = " + hclValue(x[k])
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return hclString(fmt.Sprint(v))
}

func hclKey(k string) string {
	for i, r := range k {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') && r != '-' {
			return hclString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// hclString quotes s with HCL's escapes; ${ and %{ are doubled so that
// Terraform reads them as text, not as a template.
func hclString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteString(string(r) + string(r))
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
