package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// who says who approves a witness: one non-root approver acting alone, or
// how many and which. More approvers than symbolic.LongList (a witness
// grown for a count) are said by their number and the first
// namedApprovers of them.
func who(users []policyset.User) string {
	if len(users) <= 1 {
		return "one non-root user alone"
	}
	named := users
	if len(users) > symbolic.LongList {
		named = users[:namedApprovers]
	}
	names := make([]string, 0, len(named))
	for _, u := range named {
		if len(u.Tags) > 0 {
			names = append(names, fmt.Sprintf("%s (tags %s)", u.ID, strings.Join(u.Tags, ", ")))
		} else {
			names = append(names, u.ID)
		}
	}
	list := strings.Join(names, ", ")
	if len(named) < len(users) {
		list += " and " + symbolic.Thousands(len(users)-len(named)) + " more"
	}
	return fmt.Sprintf("%s non-root approvers: %s", symbolic.Thousands(len(users)), list)
}

// namedApprovers is how many of a long list of approvers who names.
const namedApprovers = 3

// typesWords names a set of activity types by the narrowest description
// that covers exactly them: one type, a kind, a resource and action, a
// resource, or the list.
func typesWords(types []string) string {
	if len(types) == 1 {
		return types[0]
	}
	for _, by := range []struct {
		label string
		key   func(policylang.ActivityInfo) string
	}{
		{"kind", func(i policylang.ActivityInfo) string { return i.Kind }},
		{"", func(i policylang.ActivityInfo) string { return i.Resource + " " + i.Action }},
		{"resource", func(i policylang.ActivityInfo) string { return i.Resource }},
	} {
		k := by.key(policyset.DescribeActivity(types[0]))
		if k == "" || strings.TrimSpace(k) == "" {
			continue
		}
		var all []string
		for _, t := range symbolic.PolicyTypes {
			if by.key(policyset.DescribeActivity(t)) == k {
				all = append(all, t)
			}
		}
		if slices.Equal(all, types) {
			if by.label == "" {
				return "every " + strings.ToLower(k) + " activity"
			}
			return by.label + " " + k
		}
	}
	return strings.Join(types, ", ")
}
