package symbolic

import (
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Move is a pair of verdicts that some request of a type gets from two
// policy sets, with a request that shows it.
type Move struct {
	Type          string
	Before, After string
	// Witness decides as claimed (replayed through policyset.Decide)
	// when Proved; else NotProved says what stopped the proof.
	Witness   policyset.Request
	Proved    bool
	NotProved string
}

// moves lists every verdict pair that some request of typ gets from
// before and after, in verdictOrder of the after verdict then the before
// one. A pair that no request gets is absent: that absence is the proof.
// guarded is true when a question ran out of time: the moves are then
// incomplete, and the caller must not say "no change".
func moves(b *Budget, typ string, before, after []policyset.Policy, rootIDs []string) (out []Move, guarded bool) {
	before, after = canonical(before), canonical(after)
	all := append(append([]policyset.Policy(nil), before...), after...)
	q := newQuestion(typ, all, rootIDs)
	q.e.c.budget = b
	vb, va := q.twoSets(len(before), len(after))
	for _, y := range verdictOrder {
		for _, x := range verdictOrder {
			if x == y {
				continue
			}
			ans, model := q.e.c.solve(vb[x], va[y])
			switch ans {
			case timedOut:
				guarded = true
				out = append(out, Move{Type: typ, Before: x, After: y, NotProved: q.e.c.notProved()})
			case sat:
				m := Move{Type: typ, Before: x, After: y}
				req, err := q.witness(model)
				switch {
				case err != nil:
					m.NotProved = err.Error()
				default:
					m.Witness = req
					e := policyset.NewEvaluator(req)
					gotB := policyset.DecideWith(e, before, req).Verdict
					gotA := policyset.DecideWith(e, after, req).Verdict
					if gotB == x && gotA == y {
						m.Proved = true
					} else {
						m.NotProved = q.overs()
					}
				}
				out = append(out, m)
			}
		}
	}
	return out, guarded
}

// overs names what the question over-approximates, for "not proved".
func (q *question) overs() string {
	var names []string
	for _, p := range q.pols {
		for _, o := range p.overs {
			names = append(names, o+" in "+policyName(p.p))
		}
	}
	if len(names) == 0 {
		return "the witness does not decide as the analysis claims"
	}
	return joinWords(names)
}

func policyName(p policyset.Policy) string {
	if p.Name != "" {
		return "\"" + p.Name + "\""
	}
	return p.ID
}
