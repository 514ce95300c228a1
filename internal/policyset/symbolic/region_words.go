package symbolic

import (
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Words states a region over the fields the changed policies read: each
// integer field as the range its atoms leave ("eth.tx.value from 10 ETH
// exclusive to 20 ETH"), each string field as the value or the values it
// excludes, a field the request lacks as one that cannot be read, and
// anything else as the atom that holds, fails or errs.
func (r Region) Words() string {
	byPath := map[string][]AtomValue{}
	var order []string
	var other []string
	unread := map[string]bool{}
	for _, a := range r.Atoms {
		f := a.f
		// A field compared with a constant, read directly.
		direct := f != nil && f.op == fCmp && f.left.kind == tPath && f.left.slice == nil && f.cmp != "read"
		switch {
		case a.Errs && direct && f.untyped == nil:
			// A typed field compared with a constant errs only where the
			// request lacks it.
			if !unread[a.Path] {
				unread[a.Path] = true
				other = append(other, a.Path+" cannot be read")
			}
			continue
		case a.Errs:
			other = append(other, a.Text+" errs")
			continue
		}
		if direct {
			if _, seen := byPath[a.Path]; !seen {
				order = append(order, a.Path)
			}
			byPath[a.Path] = append(byPath[a.Path], a)
			continue
		}
		if a.Holds {
			other = append(other, a.Text)
		} else {
			other = append(other, "not "+a.Text)
		}
	}
	var parts []string
	for _, p := range order {
		parts = append(parts, pathWords(p, byPath[p]))
	}
	parts = append(parts, other...)
	if long := longLists(r.Witness); len(long) > 0 {
		parts = append(parts, "shown with "+joinWords(long))
	}
	return strings.Join(parts, ", ")
}

// longLists say the witness's lists longer than LongList by their size,
// "70,001 user ids", where an example writes them by runs. The approvers
// are said where the approvers are (the review's words).
func longLists(req policyset.Request) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(v any, parent, field string)
	walk = func(v any, parent, field string) {
		at := field
		if parent != "" {
			at = parent + "." + field
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], at, k)
			}
		case []any:
			if len(x) > LongList {
				w := Thousands(len(x)) + " " + strings.ReplaceAll(field, "_", " ")
				if parent != "activity.params" && parent != "" {
					w += " of " + parent
				}
				if !seen[w] {
					seen[w] = true
					out = append(out, w)
				}
			}
			for i, e := range x {
				switch e.(type) {
				case map[string]any, []any: // a scalar holds no list
					walk(e, parent, field+"["+strconv.Itoa(i)+"]")
				}
			}
		}
	}
	walk(req.Params, "activity", "params")
	for _, kw := range policylang.ConditionKeywords() {
		if v, ok := req.Keyword(kw); ok {
			walk(v, "", kw)
		}
	}
	if k := req.PrivateKey; k != nil {
		walk(anyList(k.Tags), "private_key", "tags")
	}
	for i, u := range req.Approvers {
		walk(anyList(u.Tags), "approvers["+strconv.Itoa(i)+"]", "tags")
	}
	return out
}

// anyList is a list of strings as the witness's tree holds lists.
func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// pathWords says what one path's atoms leave of its values.
func pathWords(path string, atoms []AtomValue) string {
	t := atoms[0].f.left.typ
	if t.Kind == policylang.KindString {
		var is, isNot []string
		for _, a := range atoms {
			vals := constStrings(a.f)
			positive := (a.f.cmp == "==" || a.f.cmp == "in") == a.Holds
			if positive {
				if is == nil {
					is = vals
				} else {
					is = slices.DeleteFunc(is, func(v string) bool { return !slices.Contains(vals, v) })
				}
			} else {
				isNot = append(isNot, vals...)
			}
		}
		if is != nil {
			is = slices.DeleteFunc(is, func(v string) bool { return slices.Contains(isNot, v) })
			return path + " " + oneOf(is)
		}
		slices.Sort(isNot)
		return path + " not " + oneOf(slices.Compact(isNot))
	}
	if t.Kind != policylang.KindInt && t.Kind != policylang.KindUint {
		var out []string
		for _, a := range atoms {
			if a.Holds {
				out = append(out, a.Text)
			} else {
				out = append(out, "not "+a.Text)
			}
		}
		return strings.Join(out, ", ")
	}
	// The range: the lowest value above every lower bound, the highest
	// below every upper bound; equalities and exclusions as they are.
	var lo, hi *big.Int
	var eq *big.Int
	var ne []string
	for _, a := range atoms {
		c, _ := constInt(a.f.right)
		if c == nil {
			continue
		}
		op := a.f.cmp
		if !a.Holds {
			op = map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[op]
		}
		switch op {
		case "<":
			hi = minInt(hi, new(big.Int).Sub(c, one))
		case "<=":
			hi = minInt(hi, c)
		case ">":
			lo = maxInt(lo, new(big.Int).Add(c, one))
		case ">=":
			lo = maxInt(lo, c)
		case "==":
			eq = c
		case "!=":
			ne = append(ne, number(path, c))
		}
	}
	var out string
	switch {
	case eq != nil:
		out = path + " " + number(path, eq)
	case lo != nil && hi != nil:
		out = path + " from " + number(path, lo) + " to " + number(path, hi)
	case lo != nil:
		out = path + " at least " + number(path, lo)
	case hi != nil:
		out = path + " at most " + number(path, hi)
	}
	if len(ne) > 0 {
		if out != "" {
			out += ", "
		}
		out += path + " not " + strings.Join(ne, " nor ")
	}
	return out
}

func minInt(a, b *big.Int) *big.Int {
	if a == nil || b.Cmp(a) < 0 {
		return b
	}
	return a
}

func maxInt(a, b *big.Int) *big.Int {
	if a == nil || b.Cmp(a) > 0 {
		return b
	}
	return a
}

func constStrings(f *form) []string {
	var out []string
	ts := []*term{f.right}
	if f.cmp == "in" {
		ts = f.right.elems
	}
	for _, t := range ts {
		if s, ok := t.val.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func oneOf(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return "one of " + strings.Join(q, ", ")
}

// number writes an integer; an Ethereum amount in wei also in ether.
func number(path string, n *big.Int) string {
	if strings.HasSuffix(path, "eth.tx.value") {
		return n.String() + " wei (" + Ether(n) + " ETH)"
	}
	return n.String()
}

// Ether writes wei as ether, exactly: 1500000000000000000 is 1.5.
func Ether(wei *big.Int) string {
	s := new(big.Int).Abs(wei).String()
	if len(s) <= 18 {
		s = strings.Repeat("0", 19-len(s)) + s
	}
	whole, frac := s[:len(s)-18], strings.TrimRight(s[len(s)-18:], "0")
	if wei.Sign() < 0 {
		whole = "-" + whole
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
