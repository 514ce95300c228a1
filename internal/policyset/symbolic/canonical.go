package symbolic

import (
	"cmp"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// canonical is ps in one order that does not depend on how they came:
// by their decision fields, then id and name. The solver's model (and so
// a witness) follows the order of the clauses, and the same sets come in
// different orders (the service lists an organization in its own order,
// policy_changes in the configuration's, concurrent changes are counted
// in any order), so every question is built from canonical lists: the
// plan and the function then show the same example, and a function
// gives the same answer for the same sets.
func canonical(ps []policyset.Policy) []policyset.Policy {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, comparePolicy)
	return out
}

// canonicalCounted is counted in an order of the versions' own; an
// absent version comes first.
func canonicalCounted(counted []Counted) []Counted {
	version := func(a, b *policyset.Policy) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		case b == nil:
			return 1
		}
		return comparePolicy(*a, *b)
	}
	out := slices.Clone(counted)
	slices.SortStableFunc(out, func(a, b Counted) int { return cmp.Or(version(a.Before, b.Before), version(a.After, b.After)) })
	return out
}

func comparePolicy(a, b policyset.Policy) int {
	return cmp.Or(cmp.Compare(a.Effect, b.Effect), cmp.Compare(a.Condition, b.Condition), cmp.Compare(a.Consensus, b.Consensus),
		cmp.Compare(a.Time, b.Time), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Name, b.Name))
}
