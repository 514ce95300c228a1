package policylang

import (
	"testing"
	"time"
)

// FuzzParse: the parser never panics; what it accepts prints to a form that
// parses to the same tree; checking and evaluating that tree in every field
// never panics either. The seeds are the whole corpus.
func FuzzParse(f *testing.F) {
	for _, file := range []string{"valid.jsonl", "invalid.jsonl", "warnings.jsonl"} {
		for _, e := range readCorpus(f, file) {
			f.Add(e.Expr)
		}
	}
	env := signingEnv()
	env["time.now"] = time.Date(2026, 3, 2, 14, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := Parse(src); err != nil {
			if _, ok := err.(*Diagnostic); !ok {
				t.Fatalf("Parse(%q) returned a %T", src, err)
			}
			return
		}
		assertRoundTrip(t, src)
		for _, field := range fields {
			if p, _ := Compile(src, field); p != nil {
				_, _ = p.Eval(env)
			}
		}
	})
}
