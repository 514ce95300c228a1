package symbolic

import (
	"slices"
	"strings"
)

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
