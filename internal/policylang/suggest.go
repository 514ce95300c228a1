package policylang

import "strings"

// didYouMean returns "; did you mean X?" for Closest(word, candidates),
// and "" when there is none.
func didYouMean(word string, candidates []string) string {
	best := Closest(word, candidates)
	if best == "" {
		return ""
	}
	return "; did you mean " + best + "?"
}

// minShared is how many characters past the prefix common to all
// candidates (ACTIVITY_TYPE_ for activity types) a value must share with
// a candidate for that to mean something.
const minShared = 3

// Closest is the provider's one rule for suggesting a name: the candidate
// the user most likely meant by word, or "" when none is likely. Case is
// ignored and word itself is never suggested. Of the candidates:
//
//  1. those word is a prefix of (SIGN_RAW for SIGN_RAW_PAYLOAD), the
//     shortest first, a versioned name (X_V2) counting as the length of
//     its base (X), so the newest version of the name wins;
//  2. else those sharing the longest common prefix with word (SIGNING for
//     SIGN, SIGN_RAW_PAYLOAD_V9 for SIGN_RAW_PAYLOAD_V2), the nearest by
//     edit distance first;
//  3. else the nearest by edit distance, when that is at most
//     max(2, len(word)/3) edits (a likely slip).
//
// Steps 1 and 2 count only when word reaches, or the shared prefix is, at
// least minShared characters past the prefix common to all candidates, so
// that ACTIVITY_TYPE_ alone suggests nothing. Ties keep the earlier
// candidate: callers list candidates in the order they prefer (newest
// first for activity types).
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	var cands, lower []string
	for _, c := range candidates {
		if c != word {
			cands = append(cands, c)
			lower = append(lower, strings.ToLower(c))
		}
	}
	if len(cands) == 0 {
		return ""
	}
	floor := minShared
	if len(lower) > 1 {
		floor += len(commonPrefix(lower))
	}

	// 1. word is a prefix of the candidate.
	best, bestLen := "", 0
	if len(w) >= floor {
		for _, c := range cands {
			lc := strings.ToLower(c)
			if !strings.HasPrefix(lc, w) {
				continue
			}
			if n := len(unversioned(lc)); best == "" || n < bestLen {
				best, bestLen = c, n
			}
		}
	}
	if best != "" {
		return best
	}

	// 2. The longest common prefix, if long enough.
	bestShared, bestDist := 0, 0
	for _, c := range cands {
		lc := strings.ToLower(c)
		n := len(commonPrefix([]string{w, lc}))
		if n < floor {
			continue
		}
		d := editDistance(w, lc)
		if n > bestShared || (n == bestShared && d < bestDist) {
			best, bestShared, bestDist = c, n, d
		}
	}
	if best != "" {
		return best
	}

	// 3. The nearest by edit distance, if a likely slip.
	bestDist = -1
	for _, c := range cands {
		if d := editDistance(w, strings.ToLower(c)); bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist > max(2, len(word)/3) {
		return ""
	}
	return best
}

// commonPrefix is the longest prefix of all of ss (byte-wise).
func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		n := 0
		for n < len(p) && n < len(s) && p[n] == s[n] {
			n++
		}
		p = p[:n]
	}
	return p
}

// unversioned is name without a trailing version suffix such as _v2.
func unversioned(name string) string {
	i := strings.LastIndex(name, "_v")
	if i < 0 || i+2 == len(name) {
		return name
	}
	for _, r := range name[i+2:] {
		if r < '0' || r > '9' {
			return name
		}
	}
	return name[:i]
}

// editDistance is the Levenshtein distance, counting an adjacent swap as
// one edit (the commonest typo).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
