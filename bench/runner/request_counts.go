package main

import (
	"fmt"
	"sort"
	"strings"
)

// total is the number of requests in c, a count by operation.
func total(c map[string]int) int {
	t := 0
	for _, v := range c {
		t += v
	}
	return t
}

// sumPrefix is the number of requests in c to operations starting with prefix.
func sumPrefix(c map[string]int, prefix string) int {
	t := 0
	for k, v := range c {
		if strings.HasPrefix(k, prefix) {
			t += v
		}
	}
	return t
}

// opsByCount returns the operations of c with a count above zero that
// keep accepts, largest count first, then by name.
func opsByCount(c map[string]int, keep func(op string) bool) []string {
	keys := make([]string, 0, len(c))
	for k, v := range c {
		if v > 0 && keep(k) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if c[keys[i]] != c[keys[j]] {
			return c[keys[i]] > c[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// byOpCount lists the operations by count, largest first, as counts,
// leaving out those whose name starts with except.
func byOpCount(c map[string]int, except string) string {
	keys := opsByCount(c, func(op string) bool { return !strings.HasPrefix(op, except) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// byOp lists the operations by count, largest first, as per-resource figures.
func byOp(c map[string]int, n int) string {
	keys := opsByCount(c, func(string) bool { return true })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if c[k]*100 < n { // under 0.01 per resource (once per command): the count
			parts = append(parts, fmt.Sprintf("%s ×%d", k, c[k]))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.2f", k, per(c[k], n)))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
