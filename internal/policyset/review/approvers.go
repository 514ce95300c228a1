package review

import (
	"fmt"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// approverSets are the approver sets worth trying for the user ids, tags
// and counts consensus expressions name: the requester alone first; the
// requester with each named user, with a holder of each tag; n approvers
// for each count n (with one policy's own facts, also n holders of each
// of its tags, for a filter(...).count()); and last everyone at once. No
// approver is ever a root user: the request carries no root quorum.
func approverSets(ids, tags []string, counts []int, own bool) [][]policyset.User {
	ids, tags, counts = sortedUnique(ids), sortedUnique(tags), sortedUnique(counts)
	requester := policyset.User{ID: requesterID}
	sets := [][]policyset.User{{requester}}
	for _, id := range ids {
		if id != requesterID {
			sets = append(sets, []policyset.User{requester, {ID: id}})
		}
	}
	for _, t := range tags {
		sets = append(sets, []policyset.User{requester, holder(t, 1)})
	}
	maxCount := 1
	for _, n := range counts {
		if n > 1 {
			sets = append(sets, generic(n))
			maxCount = max(maxCount, n)
		}
		for _, t := range tags {
			if own && n > 0 {
				set := []policyset.User{requester}
				for i := 1; i <= n; i++ {
					set = append(set, holder(t, i))
				}
				sets = append(sets, set)
			}
		}
	}
	full := []policyset.User{requester}
	for _, id := range ids {
		if id != requesterID {
			full = append(full, policyset.User{ID: id})
		}
	}
	for _, t := range tags {
		full = append(full, holder(t, 1))
	}
	for i := len(full); i < maxCount; i++ {
		full = append(full, policyset.User{ID: fmt.Sprintf("approver-%d", i)})
	}
	return append(sets, full)
}

// holder is the i-th user holding tag t.
func holder(t string, i int) policyset.User {
	return policyset.User{ID: fmt.Sprintf("holder-%d-of-%s", i, t), Tags: []string{t}}
}

// generic is the requester and n-1 other untagged users.
func generic(n int) []policyset.User {
	set := []policyset.User{{ID: requesterID}}
	for i := 1; i < n; i++ {
		set = append(set, policyset.User{ID: fmt.Sprintf("approver-%d", i)})
	}
	return set
}

func sortedUnique[T int | string](xs []T) []T {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
