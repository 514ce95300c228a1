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
		fmt.Fprintf(&b, "  %s: %s -> %s\n    %s\n    request = %s\n", row.Type, row.Before, row.After, row.Words, row.Example)
	}
	for _, n := range r.Notes {
		b.WriteString("  Note: " + n + "\n")
	}
	fmt.Fprintf(&b, "  Checked %d requests over %d activity types.", r.Requests, r.Types)
	return b.String()
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
