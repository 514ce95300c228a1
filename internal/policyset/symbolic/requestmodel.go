package symbolic

import (
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// The request model: which keywords and activity.params fields a request
// of one activity type can carry. "Proved" means proved under it.

type presenceKind int

const (
	sometimes presenceKind = iota
	never
	always
)

// keywordRule is whether a request carries a keyword: never, always, or
// sometimes; a sometimes keyword with a param is carried exactly when that
// activity.params field has one of values.
type keywordRule struct {
	kind   presenceKind
	param  string
	values []string
}

// requestModel is what requests of one type carry.
type requestModel struct {
	keywords  map[string]keywordRule
	params    map[string]presenceKind
	exclusive [][]string // at most one of each group
}

func (m requestModel) keyword(kw string) keywordRule {
	if r, ok := m.keywords[kw]; ok {
		return r
	}
	return keywordRule{kind: sometimes}
}

// param is whether the request has activity.params.<field>.
func (m requestModel) param(e *encoder, field string) lit {
	switch m.params[field] {
	case never:
		return litFalse
	case always:
		return litTrue
	}
	return e.c.fresh()
}

// modelOf is the request model of an activity type.
var modelOf = func(typ string) requestModel {
	_ = policylang.ConditionKeywords
	return requestModel{}
}
