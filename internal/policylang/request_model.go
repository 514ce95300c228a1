package policylang

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// What a request of each activity type carries: the catalogue's "family",
// "params", "carries", "atmostone", "atleastone" and "together" lines
// (catalogue.txt documents them). The reference says it only in prose; the
// emulator, policy_decision and the access review read it from here, so
// that a request one of them builds is one the others accept, and "proved"
// means proved under this table.

// Presence is how often a request of one type carries a keyword.
type Presence int

// The presences. The zero value is Never: a keyword the table does not
// name for a type is never carried by it.
const (
	Never Presence = iota
	Sometimes
	Always
)

func (p Presence) String() string {
	return [...]string{"never", "sometimes", "always"}[p]
}

// Condition ties a keyword's presence to activity.params.<Param>: an
// Always keyword is present exactly when the param is one of Values, a
// Sometimes keyword only then.
type Condition struct {
	Param  string
	Values []string
}

// KeywordRule is what the table says of one keyword for one type.
type KeywordRule struct {
	Presence Presence
	When     *Condition // nil: whatever the params
	Inferred bool       // our reading, not the reference's word
}

// KeywordGroup is a set of keywords the table relates (at most one of
// them, at least one, all or none).
type KeywordGroup struct {
	Keywords []string
	Inferred bool
}

// RequestModel is what a request of one activity type carries. activity
// is always present and is not in it. The model is shared: read it, do
// not change it.
type RequestModel struct {
	Type string
	// Keywords are the condition keywords the type may carry, by name;
	// a keyword not here is never carried (Rule gives Never).
	Keywords map[string]KeywordRule
	// AtMostOne groups keywords of which a request carries at most one;
	// AtLeastOne those of which it carries at least one; Together those it
	// carries all of or none of.
	AtMostOne, AtLeastOne, Together []KeywordGroup
	// Params are the activity.params fields the type exposes, sorted:
	// each always present. ParamsInferred marks a reading of ours.
	Params         []string
	ParamsInferred bool
}

// LookupRequestModel is what a request of activityType carries. A type
// the table does not name, catalogued or not, carries no keyword beyond
// activity and exposes no params.
func LookupRequestModel(activityType string) RequestModel {
	if m := cat.requests[activityType]; m != nil {
		return *m
	}
	return RequestModel{Type: activityType}
}

// RequestKeywords lists the condition keywords the table speaks of (every
// condition keyword but activity), sorted.
func RequestKeywords() []string { return ConditionKeywords() }

// Rule is what the model says of keyword: Never when it names it not.
func (m RequestModel) Rule(keyword string) KeywordRule { return m.Keywords[keyword] }

// RequestModelError says how a request goes against the table: the
// keyword or the activity.params field it is about (one of them), and why.
type RequestModelError struct {
	Keyword, Param string
	Message        string
}

func (e *RequestModelError) Error() string { return e.Message }

// Check refuses a request that cannot exist by the table: one that carries
// a keyword its type never carries, or carries it where its condition's
// param (when carried, a string) excludes it, or carries two keywords of an
// AtMostOne group, or an activity.params field the type does not expose.
// carried lists the condition keywords the request carries; params are its
// activity.params. A request that lacks what the table says it carries is
// incomplete, not impossible: Missing lists that.
func (m RequestModel) Check(carried []string, params map[string]any) error {
	carried = slices.Sorted(slices.Values(carried))
	for _, k := range carried {
		r := m.Rule(k)
		if r.Presence == Never {
			return &RequestModelError{Keyword: k, Message: fmt.Sprintf("by the catalogue, %s never carries %s (%s)", m.Type, k, m.Describe())}
		}
		if r.When == nil {
			continue
		}
		if v, ok := params[r.When.Param].(string); ok && !slices.Contains(r.When.Values, v) {
			return &RequestModelError{Keyword: k, Message: fmt.Sprintf("by the catalogue, %s carries %s only when %s, and this request's "+
				"activity.params.%s is %q (%s)", m.Type, k, r.When.describe(), r.When.Param, v, m.Describe())}
		}
	}
	for _, g := range m.AtMostOne {
		var both []string
		for _, k := range g.Keywords {
			if slices.Contains(carried, k) {
				both = append(both, k)
			}
		}
		if len(both) > 1 {
			return &RequestModelError{Keyword: both[1], Message: fmt.Sprintf("by the catalogue, %s carries at most one of %s, "+
				"and this request carries %s (%s)", m.Type, strings.Join(g.Keywords, ", "), strings.Join(both, " and "), m.Describe())}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(m.Params, p) {
			return &RequestModelError{Param: p, Message: fmt.Sprintf("by the catalogue, %s exposes no activity.params.%s (%s)",
				m.Type, p, m.Describe())}
		}
	}
	return nil
}

// Missing lists what a complete request of the type would carry and this
// one lacks, in words: a keyword always present (or whose condition holds),
// an activity.params field, "one of wallet, private_key" for an AtLeastOne
// group none of which it carries, "wallet_account (with wallet)" for a
// Together group it carries part of. Nil when it lacks nothing.
func (m RequestModel) Missing(carried []string, params map[string]any) []string {
	var out []string
	for _, k := range RequestKeywords() {
		r := m.Rule(k)
		if r.Presence != Always || slices.Contains(carried, k) {
			continue
		}
		if r.When != nil {
			v, ok := params[r.When.Param].(string)
			if !ok || !slices.Contains(r.When.Values, v) {
				continue
			}
		}
		out = append(out, k)
	}
	for _, g := range m.AtLeastOne {
		if !slices.ContainsFunc(g.Keywords, func(k string) bool { return slices.Contains(carried, k) }) {
			out = append(out, "one of "+strings.Join(g.Keywords, ", "))
		}
	}
	for _, g := range m.Together {
		var has, lacks []string
		for _, k := range g.Keywords {
			if slices.Contains(carried, k) {
				has = append(has, k)
			} else {
				lacks = append(lacks, k)
			}
		}
		if len(has) > 0 && len(lacks) > 0 {
			out = append(out, strings.Join(lacks, ", ")+" (with "+strings.Join(has, ", ")+")")
		}
	}
	for _, p := range m.Params {
		if _, ok := params[p]; !ok {
			out = append(out, "activity.params."+p)
		}
	}
	return out
}

// Describe says in words what the type carries: "carries eth.tx when
// activity.params.type is TRANSACTION_TYPE_ETHEREUM, ...; at most one of
// wallet, private_key; activity.params: type".
func (m RequestModel) Describe() string {
	var kws []string
	for _, k := range RequestKeywords() {
		r := m.Rule(k)
		switch {
		case r.Presence == Never:
			continue
		case r.When != nil && r.Presence == Always:
			kws = append(kws, k+" exactly when "+r.When.describe())
		case r.When != nil:
			kws = append(kws, k+" sometimes, only when "+r.When.describe())
		default:
			kws = append(kws, k+" "+r.Presence.String())
		}
	}
	parts := []string{"it carries no keyword but activity"}
	if len(kws) > 0 {
		parts = []string{"it carries " + strings.Join(kws, ", ")}
	}
	for _, gs := range []struct {
		words  string
		groups []KeywordGroup
	}{{"at most one of", m.AtMostOne}, {"at least one of", m.AtLeastOne}, {"all or none of", m.Together}} {
		for _, g := range gs.groups {
			parts = append(parts, gs.words+" "+strings.Join(g.Keywords, ", "))
		}
	}
	if len(m.Params) == 0 {
		parts = append(parts, "no activity.params")
	} else {
		parts = append(parts, "activity.params "+strings.Join(m.Params, ", "))
	}
	return strings.Join(parts, "; ")
}

func (c *Condition) describe() string {
	if len(c.Values) == 1 {
		return "activity.params." + c.Param + " is " + c.Values[0]
	}
	return "activity.params." + c.Param + " is one of " + strings.Join(c.Values, ", ")
}
