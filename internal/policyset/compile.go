package policyset

import (
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// maxCachedPrograms bounds the cache of compiled expressions. An
// organization has a few thousand distinct expressions at most; past the
// bound (a fuzzer, a function called with ever new text) expressions are
// compiled each time instead of growing the cache without end.
const maxCachedPrograms = 1 << 14

// programs keeps compiled expressions by field and text: every decision
// evaluates every policy, and compiling costs ten times more than running.
// Programs are safe for concurrent use.
var programs = NewMemo[exprKey, compiled](maxCachedPrograms)

type exprKey struct {
	field policylang.Field
	expr  string
}

type compiled struct {
	prog *policylang.Program
	err  *policylang.Diagnostic
}

// Compile checks an expression of field f as the service does when a
// policy is created: an error refuses it (the first is returned); warnings
// do not. Results are cached.
func Compile(f policylang.Field, expr string) (*policylang.Program, *policylang.Diagnostic) {
	c := programs.Get(exprKey{f, expr}, func() compiled {
		prog, ds := policylang.Compile(expr, f)
		return compiled{prog: prog, err: ds.FirstError()}
	})
	return c.prog, c.err
}
