package review

import (
	"math/big"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// An atom is a field path compared with literals: the values the sampler
// tries come from atoms. Paths are the language's dotted names
// (eth.tx.value, private_key.tags); approvers' fields inside a lambda are
// "approvers[].id" and "approvers[].tags".
type atom struct {
	path string
	op   string // == != in contains < <= > >= bool slice
	vals []any  // string or *big.Int literals
	lo   int    // for slice: where the literal sits in the string
}

// A group is what one disjunct of a condition joins with &&: a request
// that satisfies every atom of it at once is one the policy can apply to,
// which single-field variations from a neutral request would never reach.
type group []atom

// exprAtoms is what the sampler learns from one policy's expressions.
type exprAtoms struct {
	atoms  []atom  // every atom, for the values
	groups []group // the condition's conjunctions, for the seeds
	ids    []string
	tags   []string // user ids and tags a consensus names
	counts []int    // approver counts a consensus needs
	opaque []string // what it reads that the sampler cannot vary
}

// walkPolicy collects the atoms of a condition and a consensus.
func walkPolicy(condition, consensus, timeExpr string) exprAtoms {
	var a exprAtoms
	if n, err := policylang.Parse(condition); condition != "" && err == nil {
		w := walker{out: &a, lambdas: map[string]string{}}
		w.node(n)
		for _, d := range disjuncts(n) {
			var g group
			for _, c := range conjuncts(d) {
				if at, ok := w.atomOf(c); ok {
					g = append(g, at)
				}
			}
			if len(g) > 0 {
				a.groups = append(a.groups, g)
			}
		}
	}
	if n, err := policylang.Parse(consensus); consensus != "" && err == nil {
		w := walker{out: &a, lambdas: map[string]string{}}
		w.node(n)
	}
	if timeExpr != "" {
		a.opaque = append(a.opaque, "time.now")
	}
	slices.Sort(a.opaque)
	a.opaque = slices.Compact(a.opaque)
	return a
}

// disjuncts splits a top-level || chain; conjuncts a && chain.
func disjuncts(n policylang.Node) []policylang.Node { return split(n, "||") }
func conjuncts(n policylang.Node) []policylang.Node { return split(n, "&&") }

func split(n policylang.Node, op string) []policylang.Node {
	if b, ok := n.(*policylang.Binary); ok && b.Op == op {
		return append(split(b.X, op), split(b.Y, op)...)
	}
	return []policylang.Node{n}
}

type walker struct {
	out     *exprAtoms
	lambdas map[string]string // lambda variable -> the path of the list it ranges over, with []
}

// node walks every node, recording atoms, approver facts and opaque reads.
func (w walker) node(n policylang.Node) {
	switch n := n.(type) {
	case *policylang.Binary:
		if at, ok := w.atomOf(n); ok {
			w.out.atoms = append(w.out.atoms, at)
			w.approverFacts(at)
			if at.op == "slice" {
				return // the sampler writes the literal where the slice reads it
			}
		}
		if c, ok := w.countOf(n); ok {
			w.out.counts = append(w.out.counts, c)
		}
		w.node(n.X)
		w.node(n.Y)
	case *policylang.Unary:
		w.node(n.X)
	case *policylang.ListLit:
		for _, e := range n.Elems {
			w.node(e)
		}
	case *policylang.Call:
		w.call(n)
	case *policylang.Index:
		w.opaque(n.X)
		w.node(n.Index)
	case *policylang.Slice:
		w.opaque(n.X)
	case *policylang.Select, *policylang.Ident:
		if at, ok := w.atomOf(n); ok {
			w.out.atoms = append(w.out.atoms, at)
		} else if p, ok := w.pathOf(n); ok && !variable(p) {
			w.out.opaque = append(w.out.opaque, p)
		}
	}
}

func (w walker) call(n *policylang.Call) {
	if n.Recv == nil {
		for _, a := range n.Args {
			w.node(a)
		}
		return
	}
	recv, _ := w.pathOf(n.Recv)
	switch n.Name {
	case "any", "all", "filter":
		if recv != "approvers" {
			w.opaque(n.Recv)
			return
		}
		if len(n.Args) == 2 {
			if v, ok := n.Args[0].(*policylang.Ident); ok {
				inner := walker{out: w.out, lambdas: map[string]string{v.Name: "approvers[]"}}
				for k, p := range w.lambdas {
					if k != v.Name {
						inner.lambdas[k] = p
					}
				}
				inner.node(n.Args[1])
			}
		}
	case "contains":
		if at, ok := w.atomOf(n); ok {
			w.out.atoms = append(w.out.atoms, at)
			w.approverFacts(at)
		} else {
			w.node(n.Recv)
		}
		for _, a := range n.Args {
			w.node(a)
		}
	case "count":
		if _, isCall := n.Recv.(*policylang.Call); isCall {
			w.node(n.Recv)
		} else if recv != "approvers" {
			w.opaque(n.Recv)
		}
	default:
		w.node(n.Recv)
	}
}

// opaque records the path under an index, slice or lambda the sampler
// does not fill (slices of data, contract call arguments, transfers).
func (w walker) opaque(n policylang.Node) {
	if p, ok := w.pathOf(n); ok {
		w.out.opaque = append(w.out.opaque, p)
		return
	}
	w.node(n)
}

// approverFacts records the user ids and tags a consensus names.
func (w walker) approverFacts(at atom) {
	for _, v := range at.vals {
		s, ok := v.(string)
		switch {
		case !ok:
		case at.path == "approvers[].id":
			w.out.ids = append(w.out.ids, s)
		case at.path == "approvers[].tags":
			w.out.tags = append(w.out.tags, s)
		}
	}
}

// pathOf names a field path: an identifier and the fields selected from
// it; a lambda variable stands for the list element it ranges over.
func (w walker) pathOf(n policylang.Node) (string, bool) {
	switch n := n.(type) {
	case *policylang.Ident:
		if p, ok := w.lambdas[n.Name]; ok {
			return p, true
		}
		return n.Name, true
	case *policylang.Select:
		p, ok := w.pathOf(n.X)
		return p + "." + n.Field, ok
	}
	return "", false
}

// atomOf reads a comparison of a path with literals, either way round,
// and a list's contains with a literal.
func (w walker) atomOf(n policylang.Node) (atom, bool) {
	if c, ok := n.(*policylang.Call); ok && c.Name == "contains" && c.Recv != nil && len(c.Args) == 1 {
		p, pok := w.pathOf(c.Recv)
		v, vok := literal(c.Args[0])
		return atom{path: p, op: "contains", vals: []any{v}}, pok && vok
	}
	if p, ok := w.pathOf(n); ok {
		t, _, _, known := pathType(p)
		return atom{path: p, op: "bool"}, known && t.Kind == policylang.KindBool // a bool field read as a condition
	}
	b, ok := n.(*policylang.Binary)
	if !ok {
		return atom{}, false
	}
	if at, ok := w.sliceAtom(b); ok {
		return at, true
	}
	if p, pok := w.pathOf(b.X); pok {
		if vals, ok := literals(b.Y); ok && b.Op != "&&" && b.Op != "||" {
			return atom{path: p, op: b.Op, vals: vals}, true
		}
	}
	if p, pok := w.pathOf(b.Y); pok {
		if vals, ok := literals(b.X); ok {
			flip := map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "in": "contains"}
			if op, known := flip[b.Op]; known {
				return atom{path: p, op: op, vals: vals}, true
			}
		}
	}
	return atom{}, false
}

// countOf reads approvers.count() (or approvers.filter(...).count())
// compared with a number: the approver count that meets it.
func (w walker) countOf(b *policylang.Binary) (int, bool) {
	c, ok := b.X.(*policylang.Call)
	lit, lok := literal(b.Y)
	if !ok || !lok || c.Name != "count" {
		return 0, false
	}
	n, ok := lit.(*big.Int)
	if !ok || !n.IsInt64() || n.Int64() > 64 || n.Int64() < 0 {
		return 0, false
	}
	k := int(n.Int64())
	switch b.Op {
	case ">":
		k++
	case "<":
		k--
	}
	return k, true
}

func literal(n policylang.Node) (any, bool) {
	switch n := n.(type) {
	case *policylang.StringLit:
		return n.Value, true
	case *policylang.IntLit:
		return n.Value, true
	}
	return nil, false
}

func literals(n policylang.Node) ([]any, bool) {
	if l, ok := n.(*policylang.ListLit); ok {
		var out []any
		for _, e := range l.Elems {
			v, ok := literal(e)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	}
	v, ok := literal(n)
	return []any{v}, ok
}
