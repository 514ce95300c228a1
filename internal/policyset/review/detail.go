package review

import (
	"fmt"
	"strings"
)

// detail renders a report for a warning: every line indented by two
// spaces at least, so that Terraform keeps it as written.
func detail(r Report, max int) string {
	var b strings.Builder
	for i, row := range r.Rows {
		if i == max {
			fmt.Fprintf(&b, "  and %d more\n", len(r.Rows)-max)
			break
		}
		b.WriteString(row.Lines())
	}
	for _, n := range r.Notes {
		b.WriteString("  Note: " + n + "\n")
	}
	fmt.Fprintf(&b, "  Checked %s over %s.", plural(r.Requests, "request"), plural(r.Types, "activity type"))
	return b.String()
}

// Lines is the row as a warning writes it: the decision, the words and
// the example request, indented so that Terraform does not re-wrap them.
func (r Row) Lines() string {
	return fmt.Sprintf("  %s: %s -> %s\n    %s\n    request = %s\n", r.Type, r.Before, r.After, r.Words, r.Example)
}

// widening: anything to OUTCOME_ALLOW, or a deny to consensus.
func widening(before, after string) bool { return rank(before, after) < 2 }

// rank orders rows: to allow first, then deny to consensus, then the rest.
func rank(before, after string) int {
	switch {
	case after == outcomeAllow && before != outcomeAllow:
		return 0
	case after == outcomeConsensus && strings.HasPrefix(before, "OUTCOME_DENY"):
		return 1
	}
	return 2
}

// plural is n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
