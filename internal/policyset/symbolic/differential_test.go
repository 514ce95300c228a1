package symbolic

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The differential test keeps the encoding (a second statement of the
// engine's semantics) equal to the engine: random policy sets over a small
// slice of the catalogue, every concrete request of a small domain
// enumerated and decided by policyset.Decide before and after, and the
// analysis must find every verdict pair enumeration finds (a pair it
// missed is a false "no change"), and every witness it shows must decide
// as it claims.

const diffType = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"

// The small domain: two integer fields with constants from a few values,
// one string field with two constants, a key's tags and the approvers'
// tags from two tags, approver ids from one named id, up to three
// approvers.
var (
	valueConsts = []int64{5, 10}
	chainConsts = []int64{1}
	toConsts    = []string{"0xaa", "0xbb"}
	tagConsts   = []string{"t1", "t2"}
	userConsts  = []string{"alice"}
)

// gen draws a case over a few of the domain's features, so that the
// enumeration stays small: each case reads two to four of them.
type gen struct {
	r     *rand.Rand
	cond  []int // the condition atoms it draws from
	consA []int // the consensus atoms it draws from
	// guarded: most policies start with a guard on eth.tx.to (even seeds).
	guarded bool
	// officers: half the consensus atoms compare two approvers' ids
	// (diffOfficers, for TestDifferentialSameUser).
	officers bool
	// sends: a third of the condition atoms compare eth.tx.from with
	// eth.tx.to or a constant (diffSends, for TestDifferentialStringsEqual).
	sends bool
	// slices: the condition atoms read eth.tx.data whole, by slices and
	// by index, or eth.tx.value; no consensus, no guard (diffSlices, for
	// TestDifferentialSlices).
	slices bool
}

// diffOfficers makes newGen's cases compare approvers' ids; diffSends
// compares the sender; diffSlices reads eth.tx.data.
var diffOfficers, diffSends, diffSlices bool

func newGen(seed uint64) gen {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := gen{r: r, guarded: seed%2 == 0 && !diffSlices, officers: diffOfficers, sends: diffSends, slices: diffSlices}
	g.cond = r.Perm(9)[:2+r.IntN(3)]
	g.consA = r.Perm(7)[:1+r.IntN(3)]
	return g
}

func (g gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// atom is a random comparison or quantifier, some reading a keyword the
// request may lack.
func (g gen) condAtom() string {
	if g.slices {
		return g.sliceAtom()
	}
	if g.sends && g.r.IntN(3) == 0 {
		if g.r.IntN(3) == 0 {
			return fmt.Sprintf("eth.tx.from == '%s'", g.pick(toConsts))
		}
		return "eth.tx.to " + g.pick([]string{"==", "!="}) + " eth.tx.from"
	}
	switch g.cond[g.r.IntN(len(g.cond))] {
	case 0, 1:
		return fmt.Sprintf("eth.tx.value %s %d", g.pick([]string{"<", "<=", ">", ">=", "==", "!="}), valueConsts[g.r.IntN(len(valueConsts))])
	case 2:
		return fmt.Sprintf("eth.tx.chain_id %s %d", g.pick([]string{"==", "!="}), chainConsts[0])
	case 3:
		return fmt.Sprintf("eth.tx.to == '%s'", g.pick(toConsts))
	case 4:
		return fmt.Sprintf("eth.tx.to in ['%s', '%s']", toConsts[0], toConsts[1])
	case 5, 6:
		return fmt.Sprintf("private_key.tags.contains('%s')", g.pick(tagConsts))
	case 7:
		return fmt.Sprintf("private_key.tags.count() %s %d", g.pick([]string{">=", "<", "=="}), 1+g.r.IntN(2))
	}
	return "activity.action == 'SIGN'"
}

func (g gen) consAtom() string {
	if g.officers && g.r.IntN(2) == 0 {
		// Two distinct holders of a tag, or one who is also the other.
		return fmt.Sprintf("approvers.any(u, u.tags.contains('%s') && approvers.any(v, v.id %s u.id && v.tags.contains('%s')))",
			g.pick(tagConsts), g.pick([]string{"!=", "=="}), g.pick(tagConsts))
	}
	switch g.consA[g.r.IntN(len(g.consA))] {
	case 0:
		return fmt.Sprintf("approvers.count() %s %d", g.pick([]string{">=", "<", "=="}), 1+g.r.IntN(2))
	case 1:
		return fmt.Sprintf("approvers.any(u, u.tags.contains('%s'))", g.pick(tagConsts))
	case 2:
		return fmt.Sprintf("approvers.all(u, u.tags.contains('%s'))", g.pick(tagConsts))
	case 3:
		return fmt.Sprintf("approvers.filter(u, u.tags.contains('%s')).count() >= %d", g.pick(tagConsts), 1+g.r.IntN(2))
	case 4:
		return fmt.Sprintf("approvers.any(u, u.id == '%s')", userConsts[0])
	case 5:
		return fmt.Sprintf("approvers.any(u, u.tags.contains('%s') && u.tags.contains('%s'))", tagConsts[0], tagConsts[1])
	}
	return fmt.Sprintf("approvers.filter(u, !u.tags.contains('%s')).count() < 2", g.pick(tagConsts))
}

func (g gen) combine(atom func() string, depth int) string {
	if depth == 0 || g.r.IntN(3) == 0 {
		a := atom()
		if g.r.IntN(4) == 0 {
			return "!(" + a + ")"
		}
		return a
	}
	op := g.pick([]string{"&&", "||"})
	return "(" + g.combine(atom, depth-1) + " " + op + " " + g.combine(atom, depth-1) + ")"
}

func (g gen) policy(id string) policyset.Policy {
	p := policyset.Policy{ID: id, Name: id, Effect: "EFFECT_ALLOW"}
	if g.r.IntN(3) == 0 {
		p.Effect = "EFFECT_DENY"
	}
	if g.r.IntN(5) > 0 {
		p.Condition = g.combine(g.condAtom, 2)
	}
	// Most policies of an organization name what they govern at their top
	// level, as the report's slicing by guards expects: half the cases
	// guard each policy by a destination (or two).
	if g.guarded && g.r.IntN(5) > 0 {
		guard := fmt.Sprintf("eth.tx.to == '%s'", g.pick(toConsts))
		if g.r.IntN(3) == 0 {
			guard = fmt.Sprintf("eth.tx.to in ['%s']", g.pick(toConsts))
		}
		if p.Condition == "" {
			p.Condition = guard
		} else {
			p.Condition = guard + " && " + p.Condition
		}
	}
	if g.r.IntN(2) == 0 && !g.slices {
		p.Consensus = g.combine(g.consAtom, 1)
	}
	return p
}

// sliceAtom reads eth.tx.data (strings of a and b, up to 4 characters, in
// the enumeration's domain) whole, by a slice, by an index, or by a slice
// of a slice, or compares eth.tx.value.
func (g gen) sliceAtom() string {
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(g.pick([]string{"a", "b"}))
		}
		return b.String()
	}
	lo := g.r.IntN(4)
	hi := lo + 1 + g.r.IntN(4-lo)
	n := hi - lo
	if g.r.IntN(8) == 0 {
		n = max(0, n+g.pick2(-1, 1)) // a constant of another length: never equal
	}
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("eth.tx.data == '%s'", word(g.r.IntN(5)))
	case 1:
		return fmt.Sprintf("eth.tx.data[%d] == '%s'", lo, word(1))
	case 2:
		// A slice of [0..hi]: characters [lo..hi] of eth.tx.data.
		return fmt.Sprintf("eth.tx.data[0..%d][%d..%d] %s '%s'", hi, lo, hi, g.pick([]string{"==", "!="}), word(n))
	case 3:
		return fmt.Sprintf("eth.tx.value %s %d", g.pick([]string{"<=", ">"}), valueConsts[g.r.IntN(len(valueConsts))])
	}
	return fmt.Sprintf("eth.tx.data[%d..%d] %s '%s'", lo, hi, g.pick([]string{"==", "!="}), word(n))
}

func (g gen) pick2(a, b int) int {
	if g.r.IntN(2) == 0 {
		return a
	}
	return b
}

// policySets are a random organization and a changed one: one policy
// created, deleted or rewritten, or two.
func (g gen) policySets() (before, after []policyset.Policy) {
	n := 1 + g.r.IntN(3)
	for i := range n {
		before = append(before, g.policy(fmt.Sprint("p", i)))
	}
	after = slices.Clone(before)
	for range 1 + g.r.IntN(2) {
		switch g.r.IntN(3) {
		case 0:
			after = append(after, g.policy(fmt.Sprint("new", len(after))))
		case 1:
			if len(after) > 0 {
				i := g.r.IntN(len(after))
				after = slices.Delete(after, i, i+1)
			}
		default:
			if len(after) > 0 {
				after[g.r.IntN(len(after))] = g.policy("changed")
			}
		}
	}
	return before, after
}

// requests enumerates every request of the small domain over the
// dimensions the policies read.
func requests(policies []policyset.Policy) []policyset.Request {
	var text strings.Builder
	for _, p := range policies {
		text.WriteString(p.Condition + " " + p.Consensus + " ")
	}
	reads := func(s string) bool { return strings.Contains(text.String(), s) }
	ints := func(consts []int64) []int64 {
		out := []int64{0, 100}
		for _, c := range consts {
			out = append(out, c-1, c, c+1)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	// eth.tx: absent, or each combination of the fields read.
	var eths []map[string]any
	eths = append(eths, nil)
	if reads("eth.tx") {
		values, chains, tos, froms := []int64{0}, []int64{0}, []string{"0xcc"}, []string{""}
		if reads("eth.tx.value") {
			values = ints(valueConsts)
		}
		if reads("eth.tx.chain_id") {
			chains = ints(chainConsts)
		}
		if reads("eth.tx.to") {
			tos = append(slices.Clone(toConsts), "0xcc")
		}
		if reads("eth.tx.from") {
			// Each value a destination takes, and one none does.
			froms = append(slices.Clone(tos), "0xdd")
		}
		datas := []string{"-"}
		if reads("eth.tx.data") {
			// Every string of a, b and z up to 5 characters: each
			// segment's pieces (of a and b) and another value, and a
			// length past every slice.
			datas = []string{""}
			for n := 1; n <= 5; n++ {
				for _, d := range datas {
					if len(d) == n-1 {
						for _, c := range "abz" {
							datas = append(datas, d+string(c))
						}
					}
				}
			}
		}
		for _, v := range values {
			for _, c := range chains {
				for _, to := range tos {
					for _, from := range froms {
						for _, data := range datas {
							tx := map[string]any{"value": big.NewInt(v), "chain_id": big.NewInt(c), "to": to}
							if from != "" {
								tx["from"] = from
							}
							if data != "-" {
								tx["data"] = data
							}
							eths = append(eths, tx)
						}
					}
				}
			}
		}
	}
	// A signing request targets a wallet or a key (the catalogue's table).
	keys := []*policyset.PrivateKey{nil, {ID: "k"}}
	if reads("private_key") {
		for _, tags := range [][]string{{}, {"t1"}, {"t2"}, {"t1", "t2"}, {"other"}, {"t1", "other"}} {
			keys = append(keys, &policyset.PrivateKey{ID: "k", Tags: tags})
		}
	}
	users := []policyset.User{{ID: "fresh"}}
	if reads("u.tags") {
		users = []policyset.User{{ID: "fresh"}, {ID: "fresh", Tags: []string{"t1"}}, {ID: "fresh", Tags: []string{"t2"}},
			{ID: "fresh", Tags: []string{"t1", "t2"}}}
	}
	if reads("'" + userConsts[0] + "'") { // a named id; ids compared with each other need none
		for _, u := range slices.Clone(users) {
			u.ID = "alice"
			users = append(users, u)
		}
	}
	var sets [][]policyset.User
	var grow func(cur []policyset.User)
	grow = func(cur []policyset.User) {
		if len(cur) > 0 {
			set := slices.Clone(cur)
			for i := range set {
				if set[i].ID == "fresh" {
					set[i].ID = fmt.Sprint("user-", i)
				}
			}
			sets = append(sets, set)
		}
		if len(cur) == 3 || (len(cur) == 1 && !reads("approvers")) {
			return
		}
		for _, u := range users {
			if u.ID == "alice" && slices.ContainsFunc(cur, func(v policyset.User) bool { return v.ID == "alice" }) {
				continue
			}
			grow(append(slices.Clone(cur), u))
		}
	}
	grow(nil)
	var out []policyset.Request
	for _, eth := range eths {
		for _, k := range keys {
			for _, set := range sets {
				// eth.tx comes with Ethereum transactions only.
				req := policyset.Request{Type: diffType, Approvers: set, PrivateKey: k, Params: map[string]any{"type": "TRANSACTION_TYPE_SOLANA"}}
				if eth != nil {
					req.Params["type"] = "TRANSACTION_TYPE_ETHEREUM"
					if err := req.SetKeyword("eth.tx", eth); err != nil {
						panic(err)
					}
				}
				if k == nil {
					if err := req.SetKeyword("wallet", map[string]any{"id": "w"}); err != nil {
						panic(err)
					}
				}
				if err := req.Conforms(); err != nil {
					panic(fmt.Sprintf("the enumeration builds a request the catalogue rules out: %v", err))
				}
				out = append(out, req)
			}
		}
	}
	return out
}

// checkDifferential runs one random case; it returns a description of a
// mismatch, or "".
func checkDifferential(seed uint64) string { return checkDifferentialOf(seed, false) }

// checkDifferentialOf is checkDifferential; bounded allows moves that are
// "not proved" (counts past countSlots are bounded, and a witness that
// does not replay is not proved), never one that enumeration finds and
// the analysis misses.
func checkDifferentialOf(seed uint64, bounded bool) string {
	g := newGen(seed)
	before, after := g.policySets()
	brute := enumeratedMoves(before, after)
	if why := checkMoves(seed, before, after, before, after, brute, bounded); why != "" {
		return why
	}
	if why := checkRegions(seed, before, after, brute, bounded); why != "" {
		return why
	}
	if why := checkFindings(seed, after, requests(after)); why != "" {
		return why
	}
	// Sliced by the changed versions' guards, as the report asks, the
	// moves are the same.
	changed := changedVersions(before, after)
	return checkMoves(seed, before, after, SliceByGuards(before, changed), SliceByGuards(after, changed), brute, bounded)
}

// enumeratedMoves are the verdict pairs that some enumerated request
// (requests, over both sets' texts) gets from before and after, each with
// the first request that gets it.
func enumeratedMoves(before, after []policyset.Policy) map[[2]string]policyset.Request {
	brute := map[[2]string]policyset.Request{}
	for _, req := range requests(append(slices.Clone(before), after...)) {
		x, y := policyset.Decide(before, req).Verdict, policyset.Decide(after, req).Verdict
		if _, seen := brute[[2]string{x, y}]; x != y && !seen {
			brute[[2]string{x, y}] = req
		}
	}
	return brute
}

// checkRegions: the regions over the changed versions' atoms hold every
// pair enumeration finds, each proved one (every one, unless bounded)
// with a witness that satisfies the region's words, atom by atom.
func checkRegions(seed uint64, before, after []policyset.Policy, brute map[[2]string]policyset.Request, bounded bool) string {
	rs, _, guarded := Regions(diffType, before, after, changedVersions(before, after), nil)
	if guarded {
		return "a question ran past its time limit"
	}
	found := map[[2]string]bool{}
	for _, r := range rs {
		found[[2]string{r.Before, r.After}] = true
		if !r.Proved {
			if !bounded {
				return fmt.Sprintf("seed %d: region %s -> %s is not proved (%s): %s\nbefore %q\nafter %q", seed, r.Before, r.After,
					r.NotProved, r.Words(), before, after)
			}
			continue
		}
		if why := wordsHold(r); why != "" {
			return fmt.Sprintf("seed %d: %s\nbefore %q\nafter %q", seed, why, before, after)
		}
	}
	for pair, req := range brute {
		if !found[pair] {
			return fmt.Sprintf("seed %d: enumeration finds %s -> %s (request %+v), no region holds it\nbefore %q\nafter %q", seed,
				pair[0], pair[1], req, before, after)
		}
	}
	return ""
}

// checkFindings holds each finding the analysis proves on a policy of
// set to every enumerated request: no request disproves it, as the
// findings' concrete disproofs (DisproveAt) would.
func checkFindings(seed uint64, set []policyset.Policy, reqs []policyset.Request) string {
	for i, p := range set {
		others := slices.Delete(slices.Clone(set), i, i+1)
		never, _, _ := NeverApplies(p, nil, nil)
		shadowed, _ := Shadowed(p, others, nil, nil)
		redundant := Redundant(p, set, nil, nil)
		for _, req := range reqs {
			d := DisproveAt(p, others, req)
			switch {
			case never && d.Applies:
				return fmt.Sprintf("seed %d: %q never applies, yet applies to %+v", seed, p.ID, req)
			case shadowed && d.NotShadowed:
				return fmt.Sprintf("seed %d: %q is shadowed, yet grants %+v undenied", seed, p.ID, req)
			case redundant && d.NotRedundant:
				return fmt.Sprintf("seed %d: %q is redundant, yet decides %+v", seed, p.ID, req)
			}
		}
	}
	return ""
}

// changedVersions are the policies of one set whose decision fields are
// in no policy of the other.
func changedVersions(before, after []policyset.Policy) []policyset.Policy {
	in := func(set []policyset.Policy, p policyset.Policy) bool {
		return slices.ContainsFunc(set, func(q policyset.Policy) bool { return q.DecisionKey() == p.DecisionKey() })
	}
	var out []policyset.Policy
	for _, p := range before {
		if !in(after, p) {
			out = append(out, p)
		}
	}
	for _, p := range after {
		if !in(before, p) {
			out = append(out, p)
		}
	}
	return out
}

// checkMoves compares the analysis of askBefore and askAfter (the sets,
// or slices of them) with brute, the enumeration's moves between before
// and after; bounded allows "not proved" moves.
func checkMoves(seed uint64, before, after, askBefore, askAfter []policyset.Policy, brute map[[2]string]policyset.Request, bounded bool) string {
	got, guarded := moves(nil, diffType, askBefore, askAfter, nil)
	if guarded {
		return "a question ran past its time limit"
	}
	found := map[[2]string]bool{}
	for _, m := range got {
		found[[2]string{m.Before, m.After}] = true
		if err := m.Witness.Conforms(); m.Proved && err != nil {
			return fmt.Sprintf("seed %d: the witness of %s -> %s is a request the catalogue rules out: %v", seed, m.Before, m.After, err)
		}
		if bounded && m.Proved {
			boundedMoves.proved++
		} else if bounded {
			boundedMoves.notProved++
		}
		if !m.Proved && !bounded {
			return fmt.Sprintf("seed %d: %s -> %s is not proved (%s), witness %+v\nbefore %q\nafter %q", seed, m.Before, m.After, m.NotProved,
				m.Witness, before, after)
		}
	}
	for pair, req := range brute {
		if !found[pair] {
			return fmt.Sprintf("seed %d: enumeration finds %s -> %s (request %+v), the analysis does not\nbefore %q\nafter %q", seed,
				pair[0], pair[1], req, before, after)
		}
	}
	return ""
}

func TestDifferential(t *testing.T) {
	fired := GuardFired()
	for seed := uint64(1); seed <= 40; seed++ {
		if why := checkDifferential(seed); why != "" {
			t.Fatal(why)
		}
	}
	// QueryGuard should never fire: a question past it is "not proved",
	// which on these small domains would be a needless one.
	t.Logf("the query guard fired %d times over 40 seeds", GuardFired()-fired)
	if n := GuardFired() - fired; n != 0 {
		t.Errorf("the query guard fired %d times", n)
	}
}

// boundedMoves tallies the moves of TestDifferentialPastTheBound.
var boundedMoves struct{ proved, notProved int }

// Past the bound: with countSlots lowered, the enumeration's lists (three
// approvers, two tags) are longer than the counts' slots, so the counts
// are bounded, alone or beside exact ones (countSlots 2). The analysis
// must still find every move enumeration finds, proved with a witness the
// engine replays or said "not proved"; never a false "no change".
func TestDifferentialPastTheBound(t *testing.T) {
	defer func(n int64) { countSlots = n }(countSlots)
	// Every count bounded over 40 seeds; bounded beside exact ones over
	// 20 (the race detector makes each seed cost a second).
	for _, c := range []struct {
		slots int64
		seeds uint64
	}{{0, 40}, {2, 20}} {
		countSlots = c.slots
		boundedMoves.proved, boundedMoves.notProved = 0, 0
		for seed := uint64(1); seed <= c.seeds; seed++ {
			if !readsCount(seed) {
				continue // TestDifferential has asked it already
			}
			if why := checkDifferentialOf(seed, true); why != "" {
				t.Fatalf("countSlots %d: %s", c.slots, why)
			}
		}
		t.Logf("countSlots %d: %d moves proved, %d not proved", c.slots, boundedMoves.proved, boundedMoves.notProved)
		// The witnesses grown for bounded counts replay: on these cases
		// every move is proved, and one that is not is a proof lost.
		if boundedMoves.notProved > 0 {
			t.Errorf("countSlots %d: %d moves proved, %d not proved", c.slots, boundedMoves.proved, boundedMoves.notProved)
		}
	}
}

// readsCount tells whether the case of seed compares a count.
func readsCount(seed uint64) bool {
	before, after := newGen(seed).policySets()
	return slices.ContainsFunc(append(before, after...), func(p policyset.Policy) bool {
		return strings.Contains(p.Condition+p.Consensus, ".count()")
	})
}

func FuzzDifferential(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1000} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		fired := GuardFired()
		if why := checkDifferential(seed); why != "" {
			t.Fatal(why)
		}
		if n := GuardFired() - fired; n != 0 {
			t.Errorf("seed %d: the query guard fired %d times", seed, n)
		}
	})
}
