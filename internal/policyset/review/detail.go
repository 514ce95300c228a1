package review

import (
	"fmt"
	"strings"
)

// detail renders a report for a warning: every line indented by two
// spaces at least, so that Terraform keeps it as written.
func detail(r Report, max int) string {
	var b strings.Builder
	notProved := 0
	for i, row := range r.Rows {
		if !row.Proved {
			notProved++
		}
		if i == max {
			fmt.Fprintf(&b, "  and %d more\n", len(r.Rows)-max+r.More)
			break
		}
		b.WriteString(row.Lines())
	}
	if len(r.Rows) <= max && r.More > 0 {
		fmt.Fprintf(&b, "  and %d more\n", r.More)
	}
	what := "every request"
	if notProved > 0 {
		what = "every request but where it says not proved"
	}
	fmt.Fprintf(&b, "  Proved over %s of %s (under the request model of the guide \"Reviewing policy changes\").", what, plural(r.Types, "activity type"))
	return b.String()
}

// Lines is the row as a warning writes it: the types and verdicts, the
// words and the witness, indented so that Terraform does not re-wrap
// them; a not-proved row says why.
func (r Row) Lines() string {
	types := strings.Join(r.Types, ", ")
	if !r.Proved {
		return fmt.Sprintf("  %s: not proved\n    %s\n", types, r.Words)
	}
	return fmt.Sprintf("  %s: %s -> %s\n    %s\n    request = %s\n", types, r.Before, r.After, r.Words, r.Example)
}

// widening: anything to OUTCOME_ALLOW, or a deny to consensus.
func widening(before, after string) bool { return rank(before, after) < 2 }

// rank orders rows: to allow first, then deny to consensus, then the
// rest, then what was not proved.
func rank(before, after string) int {
	switch {
	case after == NotProved:
		return 3
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
