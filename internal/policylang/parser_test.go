package policylang

import (
	"strings"
	"testing"
)

// Every grammar form of §12 parses, and prints back in the canonical form.
func TestParseGrammarForms(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"true", "true"},
		{"false", "false"},
		{"256", "256"},
		{"007", "7"},
		{"170141183460469231731687303715884105728", "170141183460469231731687303715884105728"},
		{"'0xa9059cbb'", "'0xa9059cbb'"},
		{"''", "''"},
		{`'back\slash'`, `'back\slash'`},
		{"[1, 137]", "[1, 137]"},
		{"['AUTH', 'OTP']", "['AUTH', 'OTP']"},
		{"[]", "[]"},
		{"approvers", "approvers"},
		{"activity.resource", "activity.resource"},
		{"eth.tx.to", "eth.tx.to"},
		{"solana.tx.transfers[0]", "solana.tx.transfers[0]"},
		{"eth.tx.data[0..10]", "eth.tx.data[0..10]"},
		{"eth.tx.contract_call_args['wad']", "eth.tx.contract_call_args['wad']"},
		{"eth.eip_712.message['permitted'][0]['token']", "eth.eip_712.message['permitted'][0]['token']"},
		{"approvers.count()", "approvers.count()"},
		{"approvers.count", "approvers.count"},
		{"user.tags.contains('x')", "user.tags.contains('x')"},
		{"approvers.any(u, u.id == 'a')", "approvers.any(u, (u.id == 'a'))"},
		{"approvers.filter(u, true).count() >= 2", "(approvers.filter(u, true).count() >= 2)"},
		{"Timestamp('2026-03-01T00:00:00Z')", "Timestamp('2026-03-01T00:00:00Z')"},
		{"CronSpan('0 9 * * 1-5', '8h', 'UTC')", "CronSpan('0 9 * * 1-5', '8h', 'UTC')"},
		{"!a", "!a"},
		{"!!a", "!!a"},
		{"!(a == b)", "!(a == b)"},
		// ! binds tighter than comparisons (the conventional order).
		{"!a == b", "(!a == b)"},
		{"(a)", "a"},
		{"a == b", "(a == b)"},
		{"a != b", "(a != b)"},
		{"a < b", "(a < b)"},
		{"a <= b", "(a <= b)"},
		{"a > b", "(a > b)"},
		{"a >= b", "(a >= b)"},
		{"1 in [1, 2, 3]", "(1 in [1, 2, 3])"},
		{"a && b && c", "((a && b) && c)"},
		{"a || b || c", "((a || b) || c)"},
		// && binds tighter than ||.
		{"a && b || c", "((a && b) || c)"},
		{"a || b && c", "(a || (b && c))"},
		{"a == b && c != d", "((a == b) && (c != d))"},
		{"(a == b) == c", "((a == b) == c)"},
		{"activity.resource == 'POLICY' &&\n\tactivity.action == 'CREATE'", "((activity.resource == 'POLICY') && (activity.action == 'CREATE'))"},
		{"x[a..b][0]", "x[a..b][0]"},
		{"f(1, [2], 'x')", "f(1, [2], 'x')"},
	} {
		n, err := Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := n.String(); got != tc.want {
			t.Errorf("Parse(%q) prints %q, want %q", tc.src, got, tc.want)
		}
		assertRoundTrip(t, tc.src)
	}
}

// assertRoundTrip checks the property the fuzz target relies on: printing
// the tree and parsing it again gives the same tree.
func assertRoundTrip(t *testing.T, src string) {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		return
	}
	printed := n.String()
	again, err := Parse(printed)
	if err != nil {
		t.Fatalf("%q prints as %q, which does not parse: %v", src, printed, err)
	}
	if again.String() != printed {
		t.Fatalf("%q prints as %q, which parses to %q", src, printed, again.String())
	}
}

// Positions count lines and characters from 1, and multi-byte characters
// as one column.
func TestParsePositions(t *testing.T) {
	n, err := Parse("activity.type == 'é' &&\n  approvers.count() >= 2")
	if err != nil {
		t.Fatal(err)
	}
	and, _ := n.(*Binary)
	if and == nil {
		t.Fatalf("parsed as %T", n)
	}
	if got := and.OpSp.Start; got.Line != 1 || got.Col != 22 {
		t.Errorf("&& at %v, want 1:22", got)
	}
	cmp, _ := and.Y.(*Binary)
	if cmp == nil {
		t.Fatalf("right side parsed as %T", and.Y)
	}
	if got := cmp.Span().Start; got.Line != 2 || got.Col != 3 {
		t.Errorf("the second comparison starts at %v, want 2:3", got)
	}
	if sel := cmp.X.(*Call).Recv; sel.Span().End.Col != 12 { //nolint:forcetypeassert // a panic fails the test as well
		t.Errorf("approvers ends at column %d, want 12", sel.Span().End.Col)
	}
}

// Each class of syntax error is refused at the offending token, with a
// message that says what was expected.
func TestParseSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		msg       string
	}{
		{"", 1, 1, "empty"},
		{"   \n  ", 2, 3, "empty"},
		{`activity.type == "ACTIVITY_TYPE_CREATE_POLICIES"`, 1, 18, "double-quoted"},
		{"activity.type = 'x'", 1, 15, "'=='"},
		{"a & b", 1, 3, "'&&'"},
		{"a | b", 1, 3, "'||'"},
		{"a &&", 1, 5, "expected a value"},
		{"(a == b", 1, 8, "')'"},
		{"a == b)", 1, 7, "end of the expression"},
		{"x[0..10", 1, 8, "']'"},
		{"'unterminated", 1, 1, "unterminated string"},
		{"eth.tx.data[0:10]", 1, 14, "x[a..b]"},
		{"eth.tx.data[2..]", 1, 16, "both bounds"},
		{"a and b", 1, 3, "'&&'"},
		{"a or b", 1, 3, "'||'"},
		{"not a", 1, 1, "'!'"},
		{"user.id == <USER_ID>", 1, 12, "placeholder"},
		{"eth.tx.value > 1 + 2", 1, 18, "arithmetic"},
		{"eth.tx.value > -1", 1, 16, "negative"},
		{"a ? b : c", 1, 3, "'?:'"},
		{"[1, 2,]", 1, 6, "trailing ','"},
		{"{id: 'a'}", 1, 1, "struct"},
		{"a == b == c", 1, 8, "do not chain"},
		{"a in b in c", 1, 8, "do not chain"},
		{"0x10 == a", 1, 1, "hex values are strings"},
		{"a.", 1, 3, "field or method name"},
		{"a.1", 1, 3, "field or method name"},
		{"x[]", 1, 3, "index"},
		{"f(a,, b)", 1, 5, "expected a value"},
		{"in", 1, 1, "'in'"},
		{"a @ b", 1, 3, "unexpected character"},
		{strings.Repeat("(", 101) + "a" + strings.Repeat(")", 101), 1, 101, "nested"},
	} {
		_, err := Parse(tc.src)
		d, ok := err.(*Diagnostic)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a syntax diagnostic", tc.src, err)
			continue
		}
		if d.Code != CodeSyntax || d.Severity != SeverityError {
			t.Errorf("Parse(%q): code %s severity %d, want a syntax error", tc.src, d.Code, d.Severity)
		}
		if d.Span.Start.Line != tc.line || d.Span.Start.Col != tc.col || !strings.Contains(d.Message, tc.msg) {
			t.Errorf("Parse(%q) = %d:%d %q, want %d:%d containing %q", tc.src, d.Span.Start.Line, d.Span.Start.Col, d.Message, tc.line, tc.col, tc.msg)
		}
	}
}

// Format points a caret at the token, under its line, tabs kept.
func TestDiagnosticFormat(t *testing.T) {
	src := "activity.resource == 'POLICY' &&\n\tactivity.resouce == 'x'" //nolint:misspell // the misspelling is the input
	_, ds := Compile(src, FieldCondition)
	if len(ds) != 1 {
		t.Fatalf("want one diagnostic, got %v", ds)
	}
	want := "line 2, column 11: Activity has no documented field \"resouce\"; did you mean resource? " + //nolint:misspell // as the input
		"(documented: action, kind, params, resource, type)\n\n" +
		"    \tactivity.resouce == 'x'\n" + //nolint:misspell // as the input
		"    \t         ^^^^^^^"
	if got := ds[0].Format(src); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	// At the end of the input the caret sits one past the last character.
	_, ds = Compile("a &&", FieldCondition)
	if got := ds[0].Format("a &&"); !strings.HasSuffix(got, "    a &&\n        ^") {
		t.Errorf("Format at end of input:\n%s", got)
	}
}
