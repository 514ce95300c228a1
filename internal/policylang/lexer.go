package policylang

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Pos is a place in an expression: Offset in bytes, Line and Col from 1,
// Col counted in characters so that a caret lines up under it.
type Pos struct {
	Offset, Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Span is the source range [Start, End) of a token or node.
type Span struct{ Start, End Pos }

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokInt
	tokString
	tokLParen
	tokRParen
	tokLBrack
	tokRBrack
	tokComma
	tokDot
	tokDotDot
	tokBang
	tokAnd
	tokOr
	tokEq
	tokNe
	tokLt
	tokLe
	tokGt
	tokGe
)

var tokenNames = map[tokenKind]string{
	tokEOF: "end of expression", tokIdent: "name", tokInt: "integer", tokString: "string",
	tokLParen: "'('", tokRParen: "')'", tokLBrack: "'['", tokRBrack: "']'", tokComma: "','",
	tokDot: "'.'", tokDotDot: "'..'", tokBang: "'!'", tokAnd: "'&&'", tokOr: "'||'",
	tokEq: "'=='", tokNe: "'!='", tokLt: "'<'", tokLe: "'<='", tokGt: "'>'", tokGe: "'>='",
}

type token struct {
	kind tokenKind
	text string // an identifier, the digits of an integer, the content of a string
	span Span
}

func (t token) describe() string {
	switch t.kind {
	case tokIdent:
		return fmt.Sprintf("name %q", t.text)
	case tokInt:
		return "integer " + t.text
	case tokString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return tokenNames[t.kind]
}

// lexer turns source into tokens; it stops at the first error.
type lexer struct {
	src string
	pos Pos
}

func newLexer(src string) *lexer { return &lexer{src: src, pos: Pos{Line: 1, Col: 1}} }

func (l *lexer) peekRune() (rune, int) {
	if l.pos.Offset >= len(l.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(l.src[l.pos.Offset:])
}

func (l *lexer) advance() {
	r, n := l.peekRune()
	l.pos.Offset += n
	if r == '\n' {
		l.pos.Line++
		l.pos.Col = 1
	} else {
		l.pos.Col++
	}
}

// twoChar are the operators of two characters, by their first.
var twoChar = map[string]tokenKind{"&&": tokAnd, "||": tokOr, "==": tokEq, "!=": tokNe, "<=": tokLe, ">=": tokGe, "..": tokDotDot}

var oneChar = map[rune]tokenKind{'(': tokLParen, ')': tokRParen, '[': tokLBrack, ']': tokRBrack, ',': tokComma,
	'.': tokDot, '!': tokBang, '<': tokLt, '>': tokGt}

// mistakes explain characters that are not part of the language, most of
// them carried over from CEL, JavaScript or Python.
var mistakes = map[rune]string{
	'"': "double-quoted strings are not supported: use single quotes ('...')",
	'=': "a single '=' is not an operator: compare with '=='",
	'&': "a single '&' is not an operator: use '&&'",
	'|': "a single '|' is not an operator: use '||'",
	'+': "arithmetic is not part of the policy language",
	'-': "arithmetic and negative numbers are not part of the policy language",
	'*': "arithmetic is not part of the policy language",
	'/': "arithmetic is not part of the policy language",
	'%': "arithmetic is not part of the policy language",
	'?': "the conditional operator '?:' is not part of the policy language",
	':': "':' is not part of the policy language: slices are written x[a..b]",
	'{': "struct and map literals are not part of the policy language",
	'}': "struct and map literals are not part of the policy language",
	'`': "back-quoted strings are not supported: use single quotes ('...')",
}

// next returns the next token, or a syntax error.
func (l *lexer) next() (token, *Diagnostic) {
	for {
		r, _ := l.peekRune()
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			l.advance()
			continue
		}
		break
	}
	start := l.pos
	r, _ := l.peekRune()
	tok := func(k tokenKind, text string) (token, *Diagnostic) {
		return token{kind: k, text: text, span: Span{start, l.pos}}, nil
	}
	switch {
	case r < 0:
		return tok(tokEOF, "")
	case r == '\'':
		l.advance()
		for {
			c, _ := l.peekRune()
			if c < 0 {
				return token{}, syntaxError(Span{start, l.pos}, "unterminated string: a string starts and ends with a single quote")
			}
			l.advance()
			if c == '\'' {
				// No escapes are documented: a string is everything between
				// two single quotes.
				return tok(tokString, l.src[start.Offset+1:l.pos.Offset-1])
			}
		}
	case r >= '0' && r <= '9':
		for c, _ := l.peekRune(); c >= '0' && c <= '9'; c, _ = l.peekRune() {
			l.advance()
		}
		if c, _ := l.peekRune(); isIdentRune(c) {
			for c, _ := l.peekRune(); isIdentRune(c); c, _ = l.peekRune() {
				l.advance()
			}
			return token{}, syntaxError(Span{start, l.pos}, "%q is not a number: integers are decimal digits only (hex values are strings, '0x...')",
				l.src[start.Offset:l.pos.Offset])
		}
		return tok(tokInt, l.src[start.Offset:l.pos.Offset])
	case unicode.IsLetter(r) || r == '_':
		for c, _ := l.peekRune(); isIdentRune(c); c, _ = l.peekRune() {
			l.advance()
		}
		return tok(tokIdent, l.src[start.Offset:l.pos.Offset])
	}
	if l.pos.Offset+2 <= len(l.src) {
		if k, ok := twoChar[l.src[l.pos.Offset:l.pos.Offset+2]]; ok {
			l.advance()
			l.advance()
			return tok(k, "")
		}
	}
	if k, ok := oneChar[r]; ok {
		l.advance()
		return tok(k, "")
	}
	l.advance()
	if msg, ok := mistakes[r]; ok {
		return token{}, syntaxError(Span{start, l.pos}, "%s", msg)
	}
	return token{}, syntaxError(Span{start, l.pos}, "unexpected character %q", r)
}

func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
