package symbolic

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// The request model: which keywords and activity.params fields a request
// of one activity type carries, read from the catalogue's table
// (policylang.LookupRequestModel), which the emulator and policy_decision
// read too. "Proved" means proved under it.
type requestModel = policylang.RequestModel

func modelOf(typ string) requestModel { return policylang.LookupRequestModel(typ) }

// keywordPresence is whether the request carries a root keyword, by the
// table: never, always, sometimes, or tied to a param's value; and the
// groups: at most one of, at least one of, all or none of.
func (e *encoder) keywordPresence(root string) lit {
	switch root {
	case "activity", "approvers", "credentials", "time.now":
		return litTrue
	}
	rule := e.model.Rule(root)
	var l lit
	switch {
	case rule.Presence == policylang.Never:
		return litFalse
	case rule.Presence == policylang.Always && rule.When == nil:
		l = litTrue
	default:
		l = e.c.fresh()
	}
	e.pres[root] = l
	if rule.When != nil {
		p := "activity.params." + rule.When.Param
		s := e.scalar(p, &term{kind: tPath, typ: tString, path: p, gen: p})
		var in []lit
		for _, v := range rule.When.Values {
			if i := slices.Index(s.strs[:len(s.strs)-1], v); i >= 0 {
				in = append(in, s.classes[i])
			}
		}
		cond := e.c.and(e.presence(p), e.c.or(in...))
		e.c.clause(-l, cond) // carried only when the param has one of the values
		if rule.Presence == policylang.Always {
			e.c.clause(l, -cond) // and then always
		}
	}
	for _, g := range e.model.AtMostOne {
		if slices.Contains(g.Keywords, root) {
			for _, o := range g.Keywords {
				if o != root {
					e.c.clause(-l, -e.presence(o))
				}
			}
		}
	}
	for _, g := range e.model.AtLeastOne {
		if slices.Contains(g.Keywords, root) {
			var any []lit
			for _, o := range g.Keywords {
				if o == root {
					any = append(any, l)
				} else {
					any = append(any, e.presence(o))
				}
			}
			e.c.clause(any...)
		}
	}
	for _, g := range e.model.Together {
		if slices.Contains(g.Keywords, root) {
			for _, o := range g.Keywords {
				if o != root {
					e.c.clause(-l, e.presence(o))
					e.c.clause(l, -e.presence(o))
				}
			}
		}
	}
	return l
}

// param is whether the request has activity.params.<field>: always for
// the fields its type exposes, never for the others.
func (e *encoder) param(field string) lit {
	if slices.Contains(e.model.Params, field) {
		return litTrue
	}
	return litFalse
}
