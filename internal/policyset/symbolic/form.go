package symbolic

import (
	"math/big"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// The first stage reads an expression into a form: the expression with
// its reads named as paths into the request ("eth.tx.value",
// "approvers[*].tags"), its quantifiers kept as quantifiers. The second
// stage (encode.go) expands them over a bounded number of list slots once
// every policy of the question has been read, since the bound and each
// path's classes depend on all of them.

// formOp is the kind of a boolean form.
type formOp int

const (
	fConst    formOp = iota
	fAnd             // every arg
	fOr              // some arg
	fNot             // not arg 0
	fBoolPath        // the value of a bool path
	fCmp             // left op right
	fAny             // some element of list satisfies body
	fAll             // every element of list satisfies body
	fFree            // an over-approximated construct: value and error free
	fErr             // always an evaluation error (strict catalogue: a field it does not know)
)

// form is a boolean expression: a value, and an error that any part of
// it raises (no short-circuit).
type form struct {
	op    formOp
	val   bool    // fConst
	args  []*form // fAnd, fOr, fNot
	path  *term   // fBoolPath
	cmp   string  // fCmp: == != < <= > >= in
	left  *term   // fCmp
	right *term
	list  *listRef // fAny, fAll
	bind  string
	body  *form
	// fFree: what is over-approximated, named for "not proved"; key
	// names the construct, so that one call text is one variable.
	why, key string
	// errFree: the construct may err beyond what it reads (a value whose
	// type only an uploaded ABI gives may not compare).
	errFree bool
	// untyped: an fCmp whose left is a value only an uploaded ABI types,
	// typed by the constant it is compared with; untyped is the
	// over-approximated form it stays where the question compares that
	// path with constants of two kinds (typed_values.go).
	untyped *form
	// cron: an fFree CronSpan whose window repeats every week, decided
	// by time.now's classes (time_classes.go).
	cron *policylang.CronWindow
	// pathEq: an fFree that compares two strings read whole (== or !=),
	// with left and right the two paths; decided where both are
	// approvers' ids (same_user.go) or neither is an id, a tag or a
	// sliced string (strings_equal.go).
	pathEq string
	// src is the expression the form was read from, as the language
	// writes it: the tests evaluate a region's atoms with the engine.
	src string
}

// termKind is the kind of a non-boolean term.
type termKind int

const (
	tPath    termKind = iota // a value read from the request
	tConst                   // a literal
	tList                    // a list literal
	tCount                   // the number of elements of a (filtered) list
	tListRef                 // a list read from the request, maybe filtered
	tFree                    // a value that is over-approximated
	tErr                     // a read that always errs (strict catalogue)
)

// term is a non-boolean value.
type term struct {
	kind termKind
	typ  *policylang.Type
	// tPath: path is the concrete path, whose first segment may be a
	// bound variable ("$2.tags"); gen is the generic path, the same with
	// each variable replaced by its list's elements ("approvers[*].tags").
	path, gen string
	// tConst: a string, *big.Int (ints, and timestamps in Unix
	// nanoseconds) or bool.
	val   any
	elems []*term  // tList
	list  *listRef // tCount, tListRef
	why   string   // tFree
	// slice: a tPath read as base[lo..hi] (a string index is [i..i+1]).
	slice *sliceOf
	// reads are the list positions the path reads by index (x[2].to).
	reads []slotRead
}

// slotRead is a position read by index in a list (by its generic path).
type slotRead struct {
	gen string
	pos int64
}

// sliceOf is a range of characters read from a string path.
type sliceOf struct {
	base   *term
	lo, hi int64
	// need is the base's length the read needs: hi, or a slice's end
	// where this is read of a slice (base[2..8][0..3] is base[2..5],
	// and errs where base[2..8] does).
	need int64
}

// listRef is a list read from the request, with the filters applied to it
// so far (x.filter(a, p).filter(b, q)...).
type listRef struct {
	path    *term // a tPath of list type
	filters []filter
}

type filter struct {
	bind string
	body *form
}

// elemType is the list's element type.
func (l *listRef) elemType() *policylang.Type { return l.path.typ.Elem }

// constInt is a constant as an integer: an int literal, or a string of
// digits (a quoted number counts as that int beside one).
func constInt(t *term) (*big.Int, bool) {
	if t.kind != tConst {
		return nil, false
	}
	switch v := t.val.(type) {
	case *big.Int:
		return v, true
	case string:
		if v == "" || v[0] < '0' || v[0] > '9' {
			return nil, false
		}
		i, ok := new(big.Int).SetString(v, 10)
		return i, ok
	}
	return nil, false
}
