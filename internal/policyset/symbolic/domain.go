package symbolic

import (
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// A scalar's values are cut into classes by the constants it is compared
// with: every comparison with a constant is then true or false for a
// whole class, so a class is all a model needs to say.
//   - integers: each constant and its neighbours c-1 and c+1 are points of
//     their own, and the ranges between them are classes too;
//   - strings: each constant, and "another value";
//   - bools: true and false.

// intClass is an inclusive range of integers.
type intClass struct{ lo, hi *big.Int }

var (
	one        = big.NewInt(1)
	minInt128  = new(big.Int).Neg(new(big.Int).Lsh(one, 127))
	maxInt128  = new(big.Int).Sub(new(big.Int).Lsh(one, 127), one)
	maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(one, 256), one)
	// Timestamps are Unix nanoseconds, from the year 1 to 9999.
	minTime = timeNanos(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
	maxTime = timeNanos(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC))
)

func timeNanos(t time.Time) *big.Int {
	n := new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(1e9))
	return n.Add(n, big.NewInt(int64(t.Nanosecond())))
}

func nanosTime(n *big.Int) time.Time {
	sec, ns := new(big.Int).DivMod(n, big.NewInt(1e9), new(big.Int))
	return time.Unix(sec.Int64(), ns.Int64()).UTC()
}

// timestampNanos reads a Timestamp literal as the evaluator does.
func timestampNanos(s string) (*big.Int, bool) {
	t, err := time.Parse(time.RFC3339Nano, strings.Replace(s, "z", "Z", 1))
	if err != nil {
		return nil, false
	}
	if _, off := t.Zone(); off != 0 {
		return nil, false
	}
	return timeNanos(t), true
}

// nonNegative are the integer fields that are amounts, nonces and counts:
// never below zero in a real request (the request model). Any other int
// field ranges over the whole i128.
var nonNegative = map[string]bool{
	"value": true, "amount": true, "nonce": true, "gas": true, "gas_price": true, "gas_limit": true,
	"max_fee_per_gas": true, "max_priority_fee_per_gas": true, "max_fee_per_blob_gas": true, "fee": true,
	"fee_limit": true, "balance": true, "call_value": true, "call_token_value": true, "frozen_balance": true,
	"unfreeze_balance": true, "vout": true, "sequence": true, "otp_length": true, "chain_id": true,
	"threshold": true, "weight": true, "expiration": true, "timestamp": true, "valid_before": true, "valid_after": true,
}

// intDomain is the range of an integer path of type t.
func intDomain(gen string, t *policylang.Type) (lo, hi *big.Int) {
	switch t.Kind {
	case policylang.KindUint:
		return new(big.Int), maxUint256
	case policylang.KindTimestamp:
		return minTime, maxTime
	}
	field := gen[strings.LastIndexAny(gen, ".]")+1:]
	if nonNegative[field] {
		return new(big.Int), maxInt128
	}
	return minInt128, maxInt128
}

// intClasses cuts [lo, hi] at the points, each constant with its
// neighbours, in order.
func intClasses(consts []*big.Int, lo, hi *big.Int) []intClass {
	var pts []*big.Int
	for _, c := range consts {
		for _, d := range []int64{-1, 0, 1} {
			p := new(big.Int).Add(c, big.NewInt(d))
			if p.Cmp(lo) >= 0 && p.Cmp(hi) <= 0 {
				pts = append(pts, p)
			}
		}
	}
	slices.SortFunc(pts, func(a, b *big.Int) int { return a.Cmp(b) })
	pts = slices.CompactFunc(pts, func(a, b *big.Int) bool { return a.Cmp(b) == 0 })
	var out []intClass
	next := lo
	for _, p := range pts {
		if next.Cmp(p) < 0 {
			out = append(out, intClass{next, new(big.Int).Sub(p, one)})
		}
		out = append(out, intClass{p, p})
		next = new(big.Int).Add(p, one)
	}
	if next.Cmp(hi) <= 0 {
		out = append(out, intClass{next, hi})
	}
	return out
}

// inLanguageRange: an integer the language can compare at all.
func inLanguageRange(i *big.Int) bool { return i.Cmp(minInt128) >= 0 && i.Cmp(maxUint256) <= 0 }
