package policylang

import "strings"

// didYouMean returns ", did you mean X?" for the candidate closest to word
// when it is close enough to be a likely slip, and "" otherwise.
func didYouMean(word string, candidates []string) string {
	best, bestDist := "", -1
	for _, cand := range candidates {
		if cand == word {
			continue
		}
		w, c := strings.ToLower(word), strings.ToLower(cand)
		d := editDistance(w, c)
		// A word that extends a name or cuts it short (SIGNING for SIGN)
		// is as likely a slip as a typo.
		if short := min(len(w), len(c)); short >= 3 && (strings.HasPrefix(w, c) || strings.HasPrefix(c, w)) {
			d = min(d, 1)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = cand, d
		}
	}
	limit := max(2, len(word)/3)
	if best == "" || bestDist > limit {
		return ""
	}
	return "; did you mean " + best + "?"
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
