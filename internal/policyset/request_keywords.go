package policyset

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// How a request's condition keywords are written as attributes, the shape
// policy_decision's request argument and the decision table use: a dotted
// keyword sits under its namespace (eth = { tx = {...}, eip_712 = {...} }
// is eth.tx and eth.eip_712), an undotted one is an attribute of its own
// (wallet, wallets, wallet_account, secret). activity and private_key have
// attributes of their own shape (type, params; private_key), read apart.

// KeywordAttributes lists the request attributes that carry condition
// keywords, sorted: the namespaces and the undotted keywords.
func KeywordAttributes() []string {
	var out []string
	for _, k := range policylang.ConditionKeywords() {
		ns, _, _ := strings.Cut(k, ".")
		if k != "private_key" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}

// namespaceKeywords lists the keywords under a namespace, sorted, by the
// name they have inside it (tx, eip_712, ...); nil when ns is none.
func namespaceKeywords(ns string) []string {
	var out []string
	for _, k := range policylang.ConditionKeywords() {
		if inner, ok := strings.CutPrefix(k, ns+"."); ok {
			out = append(out, inner)
		}
	}
	return out
}

// SetKeywordAttribute sets the keywords that one request attribute of
// KeywordAttributes carries: v is plain Go data (maps, lists, strings,
// bools, integers or decimal strings). An error is a
// *policylang.ConformError whose Path is relative to the attribute
// (".tx.value" for eth), and leaves the request as it was.
func (r *Request) SetKeywordAttribute(attr string, v any) error {
	inner := namespaceKeywords(attr)
	if inner == nil {
		if !slices.Contains(KeywordAttributes(), attr) {
			return &policylang.ConformError{Message: fmt.Sprintf("%q is not a request attribute that carries keywords (%s)", attr,
				strings.Join(KeywordAttributes(), ", "))}
		}
		return r.SetKeyword(attr, v)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return &policylang.ConformError{Message: fmt.Sprintf("must be an object of the %s keywords (%s)", attr, strings.Join(inner, ", "))}
	}
	conformed := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(inner, name) {
			msg := fmt.Sprintf("%s has no keyword %q (its keywords: %s)", attr, name, strings.Join(inner, ", "))
			if best := policylang.Closest(name, inner); best != "" {
				msg = fmt.Sprintf("%s has no keyword %q; did you mean %s? (its keywords: %s)", attr, name, best, strings.Join(inner, ", "))
			}
			return &policylang.ConformError{Path: "." + name, Message: msg}
		}
		x, err := policylang.ConformKeyword(attr+"."+name, m[name])
		if err != nil {
			var ce *policylang.ConformError
			if errors.As(err, &ce) {
				return &policylang.ConformError{Path: "." + name + ce.Path, Message: ce.Message}
			}
			return err
		}
		conformed[attr+"."+name] = x
	}
	if r.keywords == nil {
		r.keywords = map[string]any{}
	}
	maps.Copy(r.keywords, conformed)
	return nil
}
