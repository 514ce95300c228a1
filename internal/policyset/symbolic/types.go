package symbolic

import (
	"slices"
	"strings"
	"sync"

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
	key := p.Condition + "\x00" + p.Consensus + "\x00" + p.Time
	if ts, ok := mayApplyCache.Load(key); ok {
		return ts.([]string) //nolint:forcetypeassert // the cache holds only these
	}
	pf := readPolicy(p, new(int), false)
	var out []string
	if !pf.broken {
		for _, typ := range PolicyTypes {
			if pf.cond == nil || activityValue(pf.cond, typ) != tvFalse {
				out = append(out, typ)
			}
		}
	}
	mayApplyCache.Store(key, out)
	return out
}

var mayApplyCache sync.Map

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
	if f.left.kind != tPath {
		return tvUnknown
	}
	field, ok := strings.CutPrefix(f.left.path, "activity.")
	if !ok {
		return tvUnknown
	}
	info := policyset.DescribeActivity(typ)
	have, fixed := map[string]string{"type": typ, "kind": info.Kind, "resource": info.Resource, "action": info.Action}[field]
	if !fixed || have == "" {
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
