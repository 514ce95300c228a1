package symbolic

import (
	"math/big"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// A value whose type only an uploaded ABI or IDL gives
// (eth.tx.contract_call_args['wad']) is compared, in a policy, with
// constants: where every comparison of it in the question is with
// constants of one kind (integers, or strings), it is read as a scalar
// of that kind with their classes, its key possibly missing (a map's
// key: the comparison then errs, as when no ABI gives the argument). A
// request's value of another kind compares as the engine compares it: a
// string of digits with an integer as that number, anything else an
// error, which the missing key already stands for (so a string constant
// of digits, which an integer value equals, is not typed). So each comparison is
// decided and the directions no request takes drop out: a raised cap is
// one proved row. Compared with constants of two kinds in one question,
// or used otherwise, it stays over-approximated (untyped).

// typedValueCmp reads x op y where one side is such a value and the
// other a constant (or a list of constants) of one kind; ok is false
// otherwise.
func typedValueCmp(n *policylang.Binary, x, y *term) (_ *form, ok bool) {
	op := n.Op
	if untypedValue(y) && (x.kind == tConst || x.kind == tList) && op != "in" {
		x, y, op = y, x, flip(op)
	}
	if !untypedValue(x) {
		return nil, false
	}
	var kind policylang.Kind
	switch {
	case op == "in" && y.kind == tList && len(y.elems) > 0:
		kind = y.elems[0].typ.Kind
		for _, el := range y.elems {
			if el.typ.Kind != kind {
				return nil, false
			}
		}
	case op != "in" && y.kind == tConst:
		kind = y.typ.Kind
	default:
		return nil, false
	}
	if kind != policylang.KindInt && kind != policylang.KindString {
		return nil, false
	}
	// An integer compares with a string of digits as that number: where
	// a string constant is one, a request's integer value is neither
	// missing nor a string of the model, so the comparison stays
	// over-approximated.
	for _, c := range append([]*term{y}, y.elems...) {
		if str, ok := c.val.(string); ok && digits(str) {
			return nil, false
		}
	}
	typed := &term{kind: tPath, typ: &policylang.Type{Kind: kind}, path: x.path, gen: x.gen, reads: x.reads}
	return &form{op: fCmp, cmp: op, left: typed, right: y, untyped: free(x.why, n.String())}, true
}

// untypedValue tells whether t is a value only an uploaded ABI types,
// read at a path.
func untypedValue(t *term) bool {
	return t.kind == tFree && t.typ != nil && t.typ.Kind == policylang.KindAny && t.path != ""
}

// addTyped notes the kind f compares its value with.
func (d *domains) addTyped(f *form) {
	kinds := d.typedKinds[f.left.gen]
	if kinds == nil {
		kinds = map[policylang.Kind]bool{}
		d.typedKinds[f.left.gen] = kinds
	}
	kinds[f.left.typ.Kind] = true
}

// oneKind tells whether the question compares the value at gen with
// constants of one kind only.
func (d *domains) oneKind(gen string) bool { return len(d.typedKinds[gen]) == 1 }

// digits tells whether the engine reads s as a number beside an integer
// (policylang's number: a decimal integer that starts with a digit).
func digits(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	_, ok := new(big.Int).SetString(s, 10)
	return ok
}
