package symbolic

import (
	"slices"
	"strconv"
	"strings"
)

// A sliced string, by its positions (issue 50 item 1). Every slice a
// question reads of a string, and every constant it compares the string
// with whole, reads characters at fixed positions. Cut at every such
// bound and length, the string is a row of segments; each segment is one
// of the pieces the constants have there, or another value of its
// length. A slice equals a constant exactly when each of its segments is
// that constant's piece, and the whole string equals a constant exactly
// when its length is the constant's and each segment below it is the
// constant's piece. Overlapping, adjacent and nested slices, and the
// string's length, are then consistent by construction: two readings of
// one position read one segment.
//
// "Another value" of a segment always exists (a segment is at least one
// character, and the pieces are finitely many), and a concatenation of
// segments equals a constant only if each segment is that constant's
// piece, so every model is a string.

// positions are one sliced string's segments: segment i is characters
// [cuts[i], cuts[i+1]), its classes one per piece, then "another value";
// a segment no constant reads has no classes (always another value).
type positions struct {
	cuts    []int64
	pieces  [][]string
	classes [][]lit
}

// positionsOf is the segments of the string at the concrete path base,
// of generic path gen.
func (e *encoder) positionsOf(base, gen string) *positions {
	if p, ok := e.positions[base]; ok {
		return p
	}
	cuts := []int64{0}
	for _, b := range e.d.sliceBounds[gen] {
		cuts = append(cuts, b[0], b[1])
	}
	for _, c := range e.d.strs[gen] {
		cuts = append(cuts, runeLen(c))
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	p := &positions{cuts: cuts, pieces: make([][]string, len(cuts)-1), classes: make([][]lit, len(cuts)-1)}
	for i := range p.pieces {
		a, b := cuts[i], cuts[i+1]
		var ps []string
		for _, c := range e.d.strs[gen] {
			if r := []rune(c); int64(len(r)) >= b {
				ps = append(ps, string(r[a:b]))
			}
		}
		for _, bd := range e.d.sliceBounds[gen] {
			lo, hi := bd[0], bd[1]
			if lo > a || b > hi {
				continue
			}
			for _, c := range e.d.strs[gen+sliceKey(lo, hi)] {
				if r := []rune(c); int64(len(r)) == hi-lo {
					ps = append(ps, string(r[a-lo:b-lo]))
				}
			}
		}
		slices.Sort(ps)
		p.pieces[i] = slices.Compact(ps)
		if len(p.pieces[i]) > 0 {
			p.classes[i] = e.oneHot(len(p.pieces[i]) + 1)
		}
	}
	e.positions[base] = p
	return p
}

// matches: characters [lo, hi) of the string are s (of length hi-lo),
// segment by segment. lo and hi are cuts.
func (p *positions) matches(c *circuit, lo, hi int64, s string) lit {
	r := []rune(s)
	i, _ := slices.BinarySearch(p.cuts, lo)
	var all []lit
	for ; i+1 < len(p.cuts) && p.cuts[i+1] <= hi; i++ {
		piece := string(r[p.cuts[i]-lo : p.cuts[i+1]-lo])
		k := slices.Index(p.pieces[i], piece)
		if k < 0 {
			return litFalse
		}
		all = append(all, p.classes[i][k])
	}
	return c.and(all...)
}

// tieSlice: the slice scalar s (characters [lo, hi) of base) takes the
// class of the constant its segments spell, or "another value".
func (e *encoder) tieSlice(s *scalar, base *term, lo, hi int64) {
	p := e.positionsOf(e.concrete(base.path), base.gen)
	for k, str := range s.strs[:len(s.strs)-1] {
		if runeLen(str) != hi-lo {
			e.c.clause(-s.classes[k])
			continue
		}
		e.c.iff(s.classes[k], p.matches(e.c, lo, hi, str))
	}
}

// tieWhole: the whole string s equals a constant exactly when its length
// is the constant's and its segments spell it.
func (e *encoder) tieWhole(s *scalar) {
	p := e.positionsOf(s.path, s.gen)
	ls := e.length(s.path)
	for k, str := range s.strs[:len(s.strs)-1] {
		n := runeLen(str)
		at := litFalse
		for i, cl := range ls.ints {
			if cl.lo.IsInt64() && cl.lo.Int64() == n && cl.lo.Cmp(cl.hi) == 0 {
				at = ls.classes[i]
			}
		}
		e.c.iff(s.classes[k], e.c.and(at, p.matches(e.c, 0, n, str)))
	}
}

// spell is the string a model gives the sliced string at path: n
// characters, each segment its piece or a filler no piece equals.
func (p *positions) spell(model []bool, n int64) string {
	out := make([]rune, 0, n)
	for i := 0; i+1 < len(p.cuts) && p.cuts[i] < n; i++ {
		size := min(p.cuts[i+1], n) - p.cuts[i]
		if p.cuts[i+1] <= n && p.classes[i] != nil {
			if k := classOf(model, p.classes[i]); k < len(p.pieces[i]) {
				out = append(out, []rune(p.pieces[i][k])...)
				continue
			}
		}
		out = append(out, []rune(filler(size, p.pieces[i]))...)
	}
	for int64(len(out)) < n {
		out = append(out, '0')
	}
	return string(out)
}

// filler is n characters that are none of taken.
func filler(n int64, taken []string) string {
	if n <= 0 {
		return ""
	}
	for _, r := range "0fxZ123456789abcdeghijklmnopqrstuvwyz" {
		s := string(slices.Repeat([]rune{r}, int(n)))
		if !slices.Contains(taken, s) {
			return s
		}
	}
	// More pieces than those: the pieces are finitely many.
	for r := rune(0x100); ; r++ {
		if s := string(slices.Repeat([]rune{r}, int(n))); !slices.Contains(taken, s) {
			return s
		}
	}
}

func runeLen(s string) int64 { return int64(len([]rune(s))) }

func sliceKey(lo, hi int64) string {
	return "[" + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10) + "]"
}

// sliceLength is the length of a slice path, fixed by its bounds: a
// slice read of a slice (its length is hi-lo wherever it is present).
func sliceLength(path string) (int64, bool) {
	_, step := lastStep(path)
	if step == "" || step[0] != '[' || !strings.Contains(step, "..") {
		return 0, false
	}
	lo, hi := sliceBounds(step)
	return hi - lo, true
}
