package policylang

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// corpusEntry is one line of testdata/*.jsonl: real expressions from the
// service's documentation and public code (valid.jsonl), constructed
// mistakes (invalid.jsonl, with the class of error), and expressions that
// are accepted with one warning (warnings.jsonl).
type corpusEntry struct {
	Field   Field  `json:"field"`
	Expr    string `json:"expr"`
	Source  string `json:"source"`
	Class   Code   `json:"class"`
	Warning Code   `json:"warning"`
	Note    string `json:"note"`
}

func readCorpus(t testing.TB, name string) []corpusEntry {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e corpusEntry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%s: %v: %s", name, err, sc.Text())
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every real expression is accepted without a finding.
func TestCorpusValid(t *testing.T) {
	entries := readCorpus(t, "valid.jsonl")
	if len(entries) < 95 {
		t.Fatalf("only %d valid expressions", len(entries))
	}
	for _, e := range entries {
		if _, ds := Compile(e.Expr, e.Field); len(ds) != 0 {
			t.Errorf("%s %q (%s): %v", e.Field, e.Expr, e.Source, ds)
		}
	}
}

// Every mistake is refused, and first for the reason it was written for.
func TestCorpusInvalid(t *testing.T) {
	entries := readCorpus(t, "invalid.jsonl")
	classes := map[Code]int{}
	for _, e := range entries {
		classes[e.Class]++
		p, ds := Compile(e.Expr, e.Field)
		first := ds.FirstError()
		if p != nil || first == nil || first.Code != e.Class {
			t.Errorf("%s %q (%s): %v, want a %s error", e.Field, e.Expr, e.Note, ds, e.Class)
		}
	}
	for _, c := range []Code{CodeSyntax, CodeType, CodeArity, CodeUnknownFunction, CodeUnbound, CodeUnknownKeyword, CodeWrongField, CodeNotBool, CodeBadLiteral} {
		if classes[c] < 5 {
			t.Errorf("only %d invalid expressions of class %s", classes[c], c)
		}
	}
}

// Every doubtful expression is accepted with exactly one warning, of its kind.
func TestCorpusWarnings(t *testing.T) {
	for _, e := range readCorpus(t, "warnings.jsonl") {
		p, ds := Compile(e.Expr, e.Field)
		if p == nil || len(ds) != 1 || ds[0].Code != e.Warning || ds[0].Severity != SeverityWarning {
			t.Errorf("%s %q (%s): %v, want one %s warning", e.Field, e.Expr, e.Note, ds, e.Warning)
		}
	}
}
