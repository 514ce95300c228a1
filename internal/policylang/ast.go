package policylang

import (
	"math/big"
	"strings"
)

// Node is a node of the syntax tree. String prints it back in a canonical
// form (every binary operation in parentheses) that parses to the same tree.
type Node interface {
	Span() Span
	String() string
}

// Ident is a bare name: a keyword (or the first part of a dotted one such as
// eth.tx) or a variable bound by any/all/filter.
type Ident struct {
	Name string
	Sp   Span
}

// BoolLit is true or false.
type BoolLit struct {
	Value bool
	Sp    Span
}

// IntLit is a decimal integer: an int when it fits in signed 128 bits, else
// a uint (unsigned 256 bits).
type IntLit struct {
	Value *big.Int
	Sp    Span
}

// StringLit is a single-quoted string; Value is its content.
type StringLit struct {
	Value string
	Sp    Span
}

// ListLit is [e1, e2, ...].
type ListLit struct {
	Elems []Node
	Sp    Span
}

// Unary is !X.
type Unary struct {
	X  Node
	Sp Span
}

// Binary is X Op Y, with Op one of && || == != < <= > >= in.
type Binary struct {
	Op   string
	X, Y Node
	OpSp Span
	Sp   Span
}

// Select is X.Field, without a call.
type Select struct {
	X       Node
	Field   string
	FieldSp Span
	Sp      Span
}

// Index is X[Index]: a list position, a character of a string, or a map key.
type Index struct {
	X, Index Node
	Sp       Span
}

// Slice is X[Lo..Hi], half-open.
type Slice struct {
	X, Lo, Hi Node
	Sp        Span
}

// Call is Recv.Name(Args) (a method), or Name(Args) when Recv is nil (a
// global function such as Timestamp).
type Call struct {
	Recv   Node
	Name   string
	NameSp Span
	Args   []Node
	Sp     Span
}

func (n *Ident) Span() Span     { return n.Sp }
func (n *BoolLit) Span() Span   { return n.Sp }
func (n *IntLit) Span() Span    { return n.Sp }
func (n *StringLit) Span() Span { return n.Sp }
func (n *ListLit) Span() Span   { return n.Sp }
func (n *Unary) Span() Span     { return n.Sp }
func (n *Binary) Span() Span    { return n.Sp }
func (n *Select) Span() Span    { return n.Sp }
func (n *Index) Span() Span     { return n.Sp }
func (n *Slice) Span() Span     { return n.Sp }
func (n *Call) Span() Span      { return n.Sp }

func (n *Ident) String() string { return n.Name }

func (n *BoolLit) String() string {
	if n.Value {
		return "true"
	}
	return "false"
}

func (n *IntLit) String() string    { return n.Value.String() }
func (n *StringLit) String() string { return quote(n.Value) }
func (n *ListLit) String() string   { return "[" + joinNodes(n.Elems) + "]" }
func (n *Unary) String() string     { return "!" + n.X.String() }

func (n *Binary) String() string {
	return "(" + n.X.String() + " " + n.Op + " " + n.Y.String() + ")"
}

func (n *Select) String() string { return n.X.String() + "." + n.Field }
func (n *Index) String() string  { return n.X.String() + "[" + n.Index.String() + "]" }
func (n *Slice) String() string {
	return n.X.String() + "[" + n.Lo.String() + ".." + n.Hi.String() + "]"
}

func (n *Call) String() string {
	call := n.Name + "(" + joinNodes(n.Args) + ")"
	if n.Recv == nil {
		return call
	}
	return n.Recv.String() + "." + call
}

func joinNodes(ns []Node) string {
	parts := make([]string, len(ns))
	for i, e := range ns {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
