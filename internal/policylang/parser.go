package policylang

import (
	"fmt"
	"math/big"
	"strings"
)

// maxDepth bounds nesting, so that a hostile expression cannot exhaust the
// stack of the provider or the emulator.
const maxDepth = 100

// Parse parses one expression. The error, if any, is a *Diagnostic with
// Code CodeSyntax and the position of the offending token.
//
// The grammar is the reference's reconstruction (§12); the order of
// precedence, which the documentation does not give, is the conventional
// one it recommends: postfix access and calls, then prefix !, then the
// comparisons and in (non-associative), then &&, then ||.
func Parse(src string) (Node, error) {
	p := &parser{lex: newLexer(src)}
	if d := p.advance(); d != nil {
		return nil, d
	}
	if p.tok.kind == tokEOF {
		return nil, syntaxError(p.tok.span, "the expression is empty")
	}
	n, d := p.or()
	if d == nil && p.tok.kind != tokEOF {
		d = p.unexpected("an operator ('&&', '||', '==', ...) or the end of the expression")
	}
	if d != nil {
		return nil, d
	}
	return n, nil
}

type parser struct {
	lex   *lexer
	tok   token
	prev  token
	depth int
}

func (p *parser) advance() *Diagnostic {
	p.prev = p.tok
	t, d := p.lex.next()
	if d != nil {
		return d
	}
	p.tok = t
	return nil
}

func (p *parser) unexpected(expected string) *Diagnostic {
	return syntaxError(p.tok.span, "expected %s, found %s", expected, p.tok.describe())
}

func (p *parser) expect(k tokenKind, context string) *Diagnostic {
	if p.tok.kind != k {
		return p.unexpected(tokenNames[k] + context)
	}
	return p.advance()
}

func span(from, to Span) Span { return Span{from.Start, to.End} }

func (p *parser) or() (Node, *Diagnostic) {
	return p.binaryChain(tokOr, "||", p.and)
}

func (p *parser) and() (Node, *Diagnostic) {
	return p.binaryChain(tokAnd, "&&", p.comparison)
}

// binaryChain parses left-associative operands of one operator.
func (p *parser) binaryChain(k tokenKind, op string, operand func() (Node, *Diagnostic)) (Node, *Diagnostic) {
	x, d := operand()
	if d != nil {
		return nil, d
	}
	for p.tok.kind == k {
		opSp := p.tok.span
		if d := p.advance(); d != nil {
			return nil, d
		}
		y, d := operand()
		if d != nil {
			return nil, d
		}
		x = &Binary{Op: op, X: x, Y: y, OpSp: opSp, Sp: span(x.Span(), y.Span())}
	}
	return x, nil
}

var comparisons = map[tokenKind]string{tokEq: "==", tokNe: "!=", tokLt: "<", tokLe: "<=", tokGt: ">", tokGe: ">="}

// wordOperators are mistakes from other languages, explained.
var wordOperators = map[string]string{"and": "&&", "or": "||", "not": "!", "is": "==", "AND": "&&", "OR": "||", "NOT": "!"}

func (p *parser) comparison() (Node, *Diagnostic) {
	x, d := p.unary()
	if d != nil {
		return nil, d
	}
	op, ok := comparisons[p.tok.kind]
	if !ok && p.tok.kind == tokIdent && p.tok.text == "in" {
		op, ok = "in", true
	}
	if !ok {
		if p.tok.kind == tokIdent {
			if w, isWord := wordOperators[p.tok.text]; isWord {
				return nil, syntaxError(p.tok.span, "%q is not an operator of the policy language: use '%s'", p.tok.text, w)
			}
		}
		return x, nil
	}
	opSp := p.tok.span
	if d := p.advance(); d != nil {
		return nil, d
	}
	y, d := p.unary()
	if d != nil {
		return nil, d
	}
	if _, again := comparisons[p.tok.kind]; again || (p.tok.kind == tokIdent && p.tok.text == "in") {
		return nil, syntaxError(p.tok.span, "comparisons do not chain: put parentheses around one of them, or join them with '&&'")
	}
	return &Binary{Op: op, X: x, Y: y, OpSp: opSp, Sp: span(x.Span(), y.Span())}, nil
}

func (p *parser) unary() (Node, *Diagnostic) {
	if p.tok.kind != tokBang {
		return p.postfix()
	}
	start := p.tok.span
	x, d := p.nested(p.unary)
	if d != nil {
		return nil, d
	}
	return &Unary{X: x, Sp: span(start, x.Span())}, nil
}

// nested parses with parse what follows the token that opens it ('!' or
// '('), one level of nesting deeper.
func (p *parser) nested(parse func() (Node, *Diagnostic)) (Node, *Diagnostic) {
	if d := p.descend(); d != nil {
		return nil, d
	}
	defer p.leave()
	return parse()
}

// descend consumes the token that opens a nested expression ('!', '(',
// '[', ...) and counts one level of nesting; the caller defers p.leave().
func (p *parser) descend() *Diagnostic {
	if d := p.enter(); d != nil {
		return d
	}
	if d := p.advance(); d != nil {
		p.leave()
		return d
	}
	return nil
}

func (p *parser) enter() *Diagnostic {
	p.depth++
	if p.depth > maxDepth {
		return syntaxError(p.tok.span, "the expression is nested more than %d deep", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) postfix() (Node, *Diagnostic) {
	x, d := p.primary()
	if d != nil {
		return nil, d
	}
	for {
		switch p.tok.kind {
		case tokDot:
			if d := p.advance(); d != nil {
				return nil, d
			}
			if p.tok.kind != tokIdent {
				return nil, p.unexpected("a field or method name after '.'")
			}
			name := p.tok
			if d := p.advance(); d != nil {
				return nil, d
			}
			if p.tok.kind != tokLParen {
				x = &Select{X: x, Field: name.text, FieldSp: name.span, Sp: span(x.Span(), name.span)}
				continue
			}
			args, end, d := p.args()
			if d != nil {
				return nil, d
			}
			x = &Call{Recv: x, Name: name.text, NameSp: name.span, Args: args, Sp: span(x.Span(), end)}
		case tokLBrack:
			if x, d = p.indexOrSlice(x); d != nil {
				return nil, d
			}
		default:
			return x, nil
		}
	}
}

func (p *parser) indexOrSlice(x Node) (Node, *Diagnostic) {
	if d := p.descend(); d != nil {
		return nil, d
	}
	defer p.leave()
	if p.tok.kind == tokRBrack {
		return nil, p.unexpected("an index, a key or a slice a..b")
	}
	lo, d := p.or()
	if d != nil {
		return nil, d
	}
	if p.tok.kind == tokDotDot {
		if d := p.advance(); d != nil {
			return nil, d
		}
		if p.tok.kind == tokRBrack {
			return nil, syntaxError(p.tok.span, "a slice needs both bounds: x[a..b] (open-ended slices are not documented)")
		}
		hi, d := p.or()
		if d != nil {
			return nil, d
		}
		end := p.tok.span
		if d := p.expect(tokRBrack, " to close the slice"); d != nil {
			return nil, d
		}
		return &Slice{X: x, Lo: lo, Hi: hi, Sp: span(x.Span(), end)}, nil
	}
	end := p.tok.span
	if d := p.expect(tokRBrack, " to close the index"); d != nil {
		return nil, d
	}
	return &Index{X: x, Index: lo, Sp: span(x.Span(), end)}, nil
}

// args parses "(" [expr {"," expr}] ")" and returns the span of ")".
func (p *parser) args() ([]Node, Span, *Diagnostic) {
	elems, end, d := p.sequence(tokRParen, "argument")
	return elems, end, d
}

// sequence parses comma-separated expressions after an opening token up to
// closing, with no trailing comma.
func (p *parser) sequence(closing tokenKind, what string) ([]Node, Span, *Diagnostic) {
	if d := p.descend(); d != nil {
		return nil, Span{}, d
	}
	defer p.leave()
	var elems []Node
	if p.tok.kind != closing {
		for {
			e, d := p.or()
			if d != nil {
				return nil, Span{}, d
			}
			elems = append(elems, e)
			if p.tok.kind != tokComma {
				break
			}
			if d := p.advance(); d != nil {
				return nil, Span{}, d
			}
			if p.tok.kind == closing {
				return nil, Span{}, syntaxError(p.prev.span, "a trailing ',' is not allowed after the last %s", what)
			}
		}
	}
	end := p.tok.span
	if d := p.expect(closing, fmt.Sprintf(" or ',' after the %s", what)); d != nil {
		return nil, Span{}, d
	}
	return elems, end, nil
}

func (p *parser) primary() (Node, *Diagnostic) {
	t := p.tok
	switch t.kind {
	case tokIdent:
		if err := p.advance(); err != nil {
			return nil, err
		}
		switch t.text {
		case "true", "false":
			return &BoolLit{Value: t.text == "true", Sp: t.span}, nil
		case "in":
			return nil, syntaxError(t.span, "expected a value, found the operator 'in'")
		}
		if w, isWord := wordOperators[t.text]; isWord && t.text != "is" {
			return nil, syntaxError(t.span, "%q is not an operator of the policy language: use '%s'", t.text, w)
		}
		if p.tok.kind == tokLParen {
			args, end, d := p.args()
			if d != nil {
				return nil, d
			}
			return &Call{Name: t.text, NameSp: t.span, Args: args, Sp: span(t.span, end)}, nil
		}
		return &Ident{Name: t.text, Sp: t.span}, nil
	case tokInt:
		v, _ := new(big.Int).SetString(t.text, 10) // the lexer gives decimal digits only
		return &IntLit{Value: v, Sp: t.span}, p.advance()
	case tokString:
		return &StringLit{Value: t.text, Sp: t.span}, p.advance()
	case tokLParen:
		x, d := p.nested(p.or)
		if d != nil {
			return nil, d
		}
		return x, p.expect(tokRParen, " to close the parenthesis")
	case tokLBrack:
		elems, end, d := p.sequence(tokRBrack, "list element")
		if d != nil {
			return nil, d
		}
		return &ListLit{Elems: elems, Sp: span(t.span, end)}, nil
	case tokLt:
		if d := p.advance(); d == nil && p.tok.kind == tokIdent && strings.ToUpper(p.tok.text) == p.tok.text {
			return nil, syntaxError(span(t.span, p.tok.span), "a placeholder such as <%s> must be replaced by a value; "+
				"quote strings: '...'", p.tok.text)
		}
	}
	return nil, syntaxError(t.span, "expected a value (a name, a number, a 'string', a [list] or a parenthesis), found %s", t.describe())
}
