package review

import (
	"math/big"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// sliceAtom reads x[lo..hi] == 'lit' on a string field (a function
// selector in eth.tx.data): the sampler can write lit at lo.
func (w walker) sliceAtom(b *policylang.Binary) (atom, bool) {
	sl, ok := b.X.(*policylang.Slice)
	lit, lok := b.Y.(*policylang.StringLit)
	if !ok || !lok || b.Op != "==" {
		return atom{}, false
	}
	lo, lok := literal(sl.Lo)
	hi, hok := literal(sl.Hi)
	p, pok := w.pathOf(sl.X)
	t, _, _, known := pathType(p)
	l, isInt := lo.(*big.Int)
	h, isInt2 := hi.(*big.Int)
	if !lok || !hok || !pok || !known || t.Kind != policylang.KindString || !isInt || !isInt2 || !l.IsInt64() || !h.IsInt64() ||
		l.Int64() < 0 || h.Int64()-l.Int64() != int64(len(lit.Value)) || h.Int64() > 1<<16 {
		return atom{}, false
	}
	return atom{path: p, op: "slice", vals: []any{lit.Value}, lo: int(l.Int64())}, true
}

// fill writes lit at lo in s, padding with zeros: the string a slice
// atom reads lit from. Hex data keeps its 0x prefix.
func fill(s string, lo int, lit string) string {
	if !strings.HasPrefix(s, "0x") && lo >= 2 {
		s = "0x"
	}
	if len(s) < lo {
		s += strings.Repeat("0", lo-len(s))
	}
	end := lo + len(lit)
	if len(s) > end {
		return s[:lo] + lit + s[end:]
	}
	return s[:lo] + lit
}
