package review

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// words says who and what a request concerns: the approvers, the
// activity, and the values that distinguish it from the neutral request.
// who and kind are who(the approvers) and kindWords(the type); keys are
// assign's, sorted.
func words(who, kind string, assign map[string]any, keys []string, base map[string]any) string {
	parts := []string{who, kind}
	for _, p := range keys {
		if compareValues(assign[p], base[p]) != 0 {
			parts = append(parts, describePath(p, assign[p]))
		}
	}
	return strings.Join(parts, ", ")
}

// kindWords names an activity type's kind in words.
func kindWords(typ string) string {
	return strings.ToLower(strings.ReplaceAll(policyset.DescribeActivity(typ).Kind, "_", " "))
}

func who(users []policyset.User) string {
	if len(users) == 1 {
		return "the requester alone"
	}
	names := make([]string, 0, len(users))
	for _, u := range users[1:] {
		if len(u.Tags) > 0 {
			names = append(names, fmt.Sprintf("%s (tags %s)", u.ID, strings.Join(u.Tags, ", ")))
		} else {
			names = append(names, u.ID)
		}
	}
	return fmt.Sprintf("%d approvers: the requester and %s", len(users), strings.Join(names, ", "))
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		if len(x) == 0 {
			return "empty"
		}
		return "holding " + fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

// describePath says a value of a path; an Ethereum value also in ether.
func describePath(p string, v any) string {
	if n, ok := v.(*big.Int); ok && p == "eth.tx.value" {
		return "eth.tx.value " + n.String() + " wei (" + ether(n) + " ETH)"
	}
	return p + " " + describe(v)
}

// ether writes wei as ether, exactly: 1500000000000000000 is 1.5.
func ether(wei *big.Int) string {
	s := new(big.Int).Abs(wei).String()
	if len(s) <= 18 { // pad to one digit before the point, at once
		s = strings.Repeat("0", 19-len(s)) + s
	}
	whole, frac := s[:len(s)-18], strings.TrimRight(s[len(s)-18:], "0")
	if wei.Sign() < 0 {
		whole = "-" + whole
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
