package policylang

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Severity says whether a finding refuses the expression.
type Severity int

const (
	// SeverityError refuses the expression: the service would refuse it, or
	// store a policy that can never evaluate.
	SeverityError Severity = iota
	// SeverityWarning is a likely mistake that the service may still accept
	// (it may know fields and values newer than its documentation).
	SeverityWarning
)

// Code classifies a finding; tests and callers match on it, never on text.
type Code string

// Error codes.
const (
	CodeSyntax          Code = "syntax"
	CodeType            Code = "type"
	CodeArity           Code = "arity"
	CodeUnknownFunction Code = "unknown-function"
	CodeUnbound         Code = "unbound"
	CodeUnknownKeyword  Code = "unknown-keyword"
	CodeWrongField      Code = "wrong-field"
	CodeNotBool         Code = "not-bool"
	CodeBadLiteral      Code = "bad-literal"
)

// Warning codes.
const (
	CodeUnknownField Code = "unknown-field"
	CodeValueSet     Code = "value-set"
	CodeBareCount    Code = "bare-count"
	CodeQuotedNumber Code = "quoted-number"
	CodeMapDot       Code = "map-dot"
	CodeWalletOrKey  Code = "wallet-or-key"
)

// Diagnostic is one finding, at the span of the offending token or node.
type Diagnostic struct {
	Severity Severity
	Code     Code
	Span     Span
	Message  string // what is wrong and what was expected
}

func (d *Diagnostic) Error() string { return d.Span.Start.String() + ": " + d.Message }

// Format renders the finding for a person: the position, the message, then
// the line of src it is on with carets under the offending text.
func (d *Diagnostic) Format(src string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d, column %d: %s\n\n", d.Span.Start.Line, d.Span.Start.Col, d.Message)
	lines := strings.Split(src, "\n")
	n := d.Span.Start.Line - 1
	if n < 0 || n >= len(lines) {
		return strings.TrimRight(b.String(), "\n")
	}
	line := strings.TrimRight(lines[n], "\r")
	width := 1
	if d.Span.End.Line == d.Span.Start.Line && d.Span.End.Col > d.Span.Start.Col {
		width = d.Span.End.Col - d.Span.Start.Col
	}
	// Tabs stay tabs under the line, so the carets line up in any terminal.
	pad := make([]rune, 0, d.Span.Start.Col)
	for i, r := range []rune(line) {
		if i >= d.Span.Start.Col-1 {
			break
		}
		if r == '\t' {
			pad = append(pad, '\t')
		} else {
			pad = append(pad, ' ')
		}
	}
	for len(pad) < d.Span.Start.Col-1 { // the end of input is past the line's last character
		pad = append(pad, ' ')
	}
	if rest := utf8.RuneCountInString(line) - (d.Span.Start.Col - 1); width > rest && rest > 0 {
		width = rest
	}
	fmt.Fprintf(&b, "    %s\n    %s%s", line, string(pad), strings.Repeat("^", width))
	return b.String()
}

func syntaxError(sp Span, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: SeverityError, Code: CodeSyntax, Span: sp, Message: fmt.Sprintf(format, args...)}
}

// Diagnostics is a list of findings, errors and warnings.
type Diagnostics []*Diagnostic

// HasError tells whether any finding is an error.
func (ds Diagnostics) HasError() bool { return ds.FirstError() != nil }

// FirstError is the first error, or nil.
func (ds Diagnostics) FirstError() *Diagnostic {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return d
		}
	}
	return nil
}
