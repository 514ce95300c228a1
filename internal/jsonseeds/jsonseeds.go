// Package jsonseeds is the seed corpus of the fuzz targets that read JSON
// text (the client's intent comparison, the provider's JSON attributes):
// one list of the edge cases, so that each target starts from all of them.
package jsonseeds

import "strings"

// Texts are JSON and almost-JSON texts: empty members, huge and exact
// numbers, trailing data, invalid UTF-8 and surrogates, duplicate keys, a
// byte order mark, deep nesting.
func Texts() []string {
	return []string{
		`{}`, `{"key":"value"}`, ` {"a":1} `, "\n{\"a\":[1,2,{}]}\t", `{"a":null,"b":{},"c":[],"d":{"e":{"f":null}},"g":[null,{},[]]}`,
		`{"rules":[{"cidr":"10.0.0.0/8"}],"onEvaluationError":"DENY"}`, `{"n":12345678901234567890123,"f":1.5e300,"z":-0}`,
		`{"big":1e999}`, `{"a":1}{"b":2}`, `{} {}`, `{}x`, `{`, `}`, `[]`, `[{}]`, `null`, `"x"`, `1`, `true`, ``, ` `,
		`{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":1,"a":2}`, `{"":{"":{}}}`, "\ufeff{}", `{"a":"\u0000"}`,
		strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100),
		strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
	}
}
