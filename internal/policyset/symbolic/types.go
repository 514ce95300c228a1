package symbolic

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// PolicyTypes are the activity types the policies decide (the root
// quorum alone governs the others), in catalogue order.
var PolicyTypes = func() []string {
	var out []string
	for _, t := range policylang.ActivityTypes() {
		if info, _ := policylang.LookupActivity(t); !info.RootQuorumOnly {
			out = append(out, t)
		}
	}
	return out
}()

// MayApply lists the types whose requests a policy can count for:
// those for which its condition is not false by the activity's own
// fields (type, kind, resource, action) alone. Elsewhere it gives
// not-applicable or an error, which neither allows nor denies, so leaving
// it out of those types' questions changes no answer. A policy whose
// expressions the language refuses counts for none.
func MayApply(p policyset.Policy) []string {
	return mayApplyCache.Get(p.Condition+"\x00"+p.Consensus+"\x00"+p.Time, func() []string { return mayApply(p) })
}

// mayApplyCache keeps MayApply by policy text.
var mayApplyCache = policyset.NewMemo[string, []string](maxCachedForms)

func mayApply(p policyset.Policy) []string {
	pf := readPolicy(p, new(int), false)
	var out []string
	if !pf.broken {
		reads := map[string]bool{}
		for _, f := range []*form{pf.cond, pf.cons, pf.timeF} {
			topReads(f, reads)
		}
		only := typesGuarded(pf.cond)
		for _, typ := range PolicyTypes {
			if only != nil && !only[typ] {
				continue // its activity.type conjunct is false there
			}
			if (pf.cond == nil || activityValue(pf.cond, typ) != tvFalse) && !readsAbsent(reads, typ) {
				out = append(out, typ)
			}
		}
	}
	return out
}

// typesGuarded are the types a top-level conjunct activity.type == 'X'
// (or in [...]) of cond allows, nil without one: on any other type that
// conjunct, so the condition, is false. It saves asking activityValue
// of each of the catalogue's types.
func typesGuarded(cond *form) map[string]bool {
	if cond == nil {
		return nil
	}
	for _, f := range conjuncts(cond, nil) {
		if f.op != fCmp || (f.cmp != "==" && f.cmp != "in") || f.left == nil || f.left.kind != tPath || f.left.path != "activity.type" ||
			f.right == nil {
			continue
		}
		consts := []*term{f.right}
		if f.cmp == "in" {
			if f.right.kind != tList {
				continue
			}
			consts = f.right.elems
		}
		only := map[string]bool{}
		for _, c := range consts {
			s, ok := c.val.(string)
			if c.kind != tConst || !ok {
				only = nil
				break
			}
			only[s] = true
		}
		if only != nil {
			return only
		}
	}
	return nil
}

// tv is a three-valued truth: what a form is when only the activity's
// fields are known.
type tv int

const (
	tvUnknown tv = iota
	tvTrue
	tvFalse
)

func activityValue(f *form, typ string) tv {
	switch f.op {
	case fConst:
		if f.val {
			return tvTrue
		}
		return tvFalse
	case fNot:
		switch activityValue(f.args[0], typ) {
		case tvTrue:
			return tvFalse
		case tvFalse:
			return tvTrue
		}
		return tvUnknown
	case fAnd, fOr:
		all, some := true, false
		for _, a := range f.args {
			v := activityValue(a, typ)
			if f.op == fAnd && v == tvFalse || f.op == fOr && v == tvTrue {
				some = true
			}
			if v == tvUnknown || (f.op == fAnd) != (v == tvTrue) {
				all = false
			}
		}
		switch {
		case some && f.op == fAnd:
			return tvFalse
		case some:
			return tvTrue
		case all && f.op == fAnd:
			return tvTrue
		case all:
			return tvFalse
		}
		return tvUnknown
	case fCmp:
		return activityCmp(f, typ)
	}
	return tvUnknown
}

// activityCmp decides a comparison of an activity field with constants.
func activityCmp(f *form, typ string) tv {
	if f.left.kind != tPath || f.right == nil {
		return tvUnknown
	}
	field, ok := strings.CutPrefix(f.left.path, "activity.")
	if !ok {
		return tvUnknown
	}
	var have string
	switch field {
	case "type":
		have = typ
	case "kind":
		have = policyset.DescribeActivity(typ).Kind
	case "resource":
		have = policyset.DescribeActivity(typ).Resource
	case "action":
		have = policyset.DescribeActivity(typ).Action
	}
	if have == "" {
		return tvUnknown
	}
	consts := []*term{f.right}
	if f.cmp == "in" {
		consts = f.right.elems
	}
	match := slices.ContainsFunc(consts, func(c *term) bool { s, ok := c.val.(string); return ok && s == have })
	switch f.cmp {
	case "==", "in":
		if match {
			return tvTrue
		}
		return tvFalse
	case "!=":
		if match {
			return tvFalse
		}
		return tvTrue
	}
	return tvUnknown
}

// TypeKey is what a question over policies asks of requests of typ, as
// far as the type itself goes: the request model, which activity fields
// the type has, and the truth of each comparison of an activity field in
// the policies. Two types with one key get the same answers (the
// circuits are the same), so a caller asks once and says it of both.
func TypeKey(typ string, policies []policyset.Policy) string {
	var b strings.Builder
	// Of the request model, what the policies can see: the rules of the
	// keywords they read (and of those grouped with them), the params
	// they read.
	m := modelOf(typ)
	reads := map[string]bool{}
	for _, p := range policies {
		pf := readPolicy(p, nil, false)
		for _, f := range []*form{pf.cond, pf.cons, pf.timeF} {
			allReads(f, reads)
		}
	}
	roots := map[string]bool{}
	for p := range reads {
		roots[rootOf(p)] = true
		if field, ok := strings.CutPrefix(p, "activity.params."); ok {
			field, _, _ = strings.Cut(field, ".")
			field, _, _ = strings.Cut(field, "[")
			fmt.Fprintf(&b, "param %s %v;", field, slices.Contains(m.Params, field))
		}
	}
	for _, groups := range [][]policylang.KeywordGroup{m.AtMostOne, m.AtLeastOne, m.Together} {
		for _, g := range groups {
			if slices.ContainsFunc(g.Keywords, func(k string) bool { return roots[k] }) {
				for _, k := range g.Keywords {
					roots[k] = true
				}
				fmt.Fprintf(&b, "group %v;", g.Keywords)
			}
		}
	}
	for _, root := range slices.Sorted(maps.Keys(roots)) {
		r := m.Rule(root)
		fmt.Fprintf(&b, "%s %d", root, r.Presence)
		if r.When != nil {
			fmt.Fprintf(&b, " when %s %v", r.When.Param, r.When.Values)
			fmt.Fprintf(&b, " param %v", slices.Contains(m.Params, r.When.Param))
		}
		b.WriteByte(';')
	}
	info := policyset.DescribeActivity(typ)
	for _, f := range []string{info.Kind, info.Resource, info.Action} {
		if f == "" {
			b.WriteString("|-")
		} else {
			b.WriteString("|+")
		}
	}
	for _, p := range policies {
		b.WriteByte(';')
		b.WriteString(activitySegment(p, typ))
	}
	return b.String()
}

// activitySegment is one policy's part of TypeKey: the value of each of
// its comparisons of an activity field for typ. It is kept per policy
// text and type: a command reviews each change against every policy of
// the organization, most of them alike.
func activitySegment(p policyset.Policy, typ string) string {
	return segmentCache.Get(typ+"\x00"+p.Condition+"\x00"+p.Consensus+"\x00"+p.Time, func() string {
		pf := readPolicy(p, nil, false)
		var b strings.Builder
		for _, f := range []*form{pf.cond, pf.cons, pf.timeF} {
			writeActivityValues(&b, f, typ)
		}
		return b.String()
	})
}

var segmentCache = policyset.NewMemo[string, string](maxCachedForms)

// writeActivityValues writes, for each comparison of an activity field in
// f (quantifier bodies included), its value for typ.
func writeActivityValues(b *strings.Builder, f *form, typ string) {
	if f == nil {
		return
	}
	for _, a := range f.args {
		writeActivityValues(b, a, typ)
	}
	switch f.op {
	case fCmp:
		if f.left.kind == tPath && strings.HasPrefix(f.left.path, "activity.") && !strings.HasPrefix(f.left.path, "activity.params") {
			b.WriteByte(byte('0' + activityValue(f, typ)))
		}
	case fAny, fAll:
		writeActivityValues(b, f.body, typ)
		for _, flt := range f.list.filters {
			writeActivityValues(b, flt.body, typ)
		}
	}
}

// topReads gathers the paths a form reads outside any quantifier's body:
// with no short-circuit, each is read whatever the rest gives.
func topReads(f *form, into map[string]bool) {
	if f == nil {
		return
	}
	for _, a := range f.args {
		topReads(a, into)
	}
	add := func(t *term) {
		if t == nil {
			return
		}
		switch t.kind {
		case tPath:
			into[t.path] = true
		case tCount, tListRef:
			into[t.list.path.path] = true
		}
	}
	switch f.op {
	case fBoolPath:
		add(f.path)
	case fCmp:
		add(f.left)
	case fAny, fAll:
		add(f.list.path)
	}
}

// readsAbsent tells whether some path read is absent from every request
// of typ: a keyword its type never carries, or an activity.params field it
// does not expose. Such a policy errs for every request of the type.
func readsAbsent(reads map[string]bool, typ string) bool {
	m := modelOf(typ)
	for p := range reads {
		if strings.HasPrefix(p, "$") {
			continue
		}
		root := rootOf(p)
		switch root {
		case "", "activity", "approvers", "credentials", "time.now":
		default:
			if m.Rule(root).Presence == policylang.Never {
				return true
			}
		}
		if field, ok := strings.CutPrefix(p, "activity.params."); ok {
			field, _, _ = strings.Cut(field, ".")
			field, _, _ = strings.Cut(field, "[")
			if !slices.Contains(m.Params, field) {
				return true
			}
		}
	}
	return false
}

// allReads gathers every path a form reads, inside quantifiers too, and
// the paths over-approximated forms read.
func allReads(f *form, into map[string]bool) {
	if f == nil {
		return
	}
	topReads(f, into)
	for _, a := range f.args {
		allReads(a, into)
	}
	switch f.op {
	case fAny, fAll:
		allReads(f.body, into)
		for _, flt := range f.list.filters {
			allReads(flt.body, into)
		}
	case fFree:
		into[f.key] = true
	}
}
