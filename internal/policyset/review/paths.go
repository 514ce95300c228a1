package review

import (
	"strings"
	"sync"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// Which field paths the sampler can give values to: the scalar fields of
// activity.params, private_key, the approvers and the struct keywords
// (eth.tx, wallet, ...). Anything else a policy reads (a slice of data, a
// contract call argument, time.now) is opaque, and named in the notes.

// activityFields are fixed by the activity type: never varied.
var activityFields = map[string]bool{"activity.type": true, "activity.kind": true, "activity.resource": true, "activity.action": true}

// pathType is the catalogued type of a variable path, and the keyword and
// field it sets (keyword "" for activity.params, private_key and approvers).
// The catalogue does not change, so a catalogued path's answer is kept
// (the sampler asks for every path of every sampled request); only those,
// a finite set, so that arbitrary paths do not grow the cache.
func pathType(p string) (t *policylang.Type, keyword, field string, ok bool) {
	if v, hit := pathTypes.Load(p); hit {
		pt := v.(pathTyped) //nolint:forcetypeassert // only pathTyped is stored
		return pt.t, pt.keyword, pt.field, true
	}
	t, keyword, field, ok = lookupPathType(p)
	if ok {
		pathTypes.Store(p, pathTyped{t: t, keyword: keyword, field: field})
	}
	return t, keyword, field, ok
}

// pathTypes caches pathType's catalogued answers.
var pathTypes sync.Map // path -> pathTyped

type pathTyped struct {
	t              *policylang.Type
	keyword, field string
}

func lookupPathType(p string) (t *policylang.Type, keyword, field string, ok bool) {
	if p == "approvers[].email" || p == "approvers[].alias" {
		return nil, "", "", false // approvers carry ids and tags only: noted, not varied
	}
	for _, owner := range []struct{ prefix, st string }{
		{"activity.params.", "ActivityParams"}, {"private_key.", "PrivateKey"}, {"approvers[].", "User"},
	} {
		if f, found := strings.CutPrefix(p, owner.prefix); found {
			t, ok = policylang.FieldType(owner.st, f)
			return t, "", f, ok && scalar(t)
		}
	}
	for _, k := range conditionKeywords {
		f, found := strings.CutPrefix(p, k+".")
		if !found || k == "private_key" {
			continue
		}
		kt, _ := policylang.KeywordType(k)
		if kt == nil || kt.Kind != policylang.KindStruct {
			return nil, "", "", false
		}
		t, ok = policylang.FieldType(kt.Struct, f)
		return t, k, f, ok && scalar(t)
	}
	return nil, "", "", false
}

// scalar: the types the sampler gives values to.
func scalar(t *policylang.Type) bool {
	switch t.Kind {
	case policylang.KindString, policylang.KindInt, policylang.KindUint, policylang.KindBool:
		return true
	case policylang.KindList:
		return t.Elem.Kind == policylang.KindString
	}
	return false
}

// variable tells whether the sampler can vary (or need not vary) p.
func variable(p string) bool {
	if activityFields[p] || p == "approvers" || p == "approvers[]" || p == "activity" {
		return true
	}
	_, _, _, ok := pathType(p)
	return ok
}

// conditionKeywords are the catalogue's, read once: the sampler asks for
// them for every path and example.
var conditionKeywords = policylang.ConditionKeywords()
