package symbolic

import (
	"slices"
	"strconv"
	"strings"
)

// LongList is the length past which a witness's list is said by its size
// (Region.Words: "shown with 70,001 user ids") and written by runs (the
// review's examples), never element by element: such a list was grown
// for a count (padCounts).
const LongList = 32

// joinWords joins distinct phrases in order, "a, b and c".
func joinWords(ws []string) string {
	ws = slices.Compact(slices.Clone(ws))
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// Thousands writes n with a comma between each three digits: 150001 is
// 150,001, as a witness's list is said by its size.
func Thousands(n int) string { return groupDigits(strconv.Itoa(n)) }

// groupDigits puts a comma between each three digits of a decimal.
func groupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}
