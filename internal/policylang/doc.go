// Package policylang is the service's policy language: the expressions in a
// policy's condition, consensus and time fields. It parses an expression to
// an AST with positions (Parse), checks it against the documented catalogue
// of keywords, structs, functions and value sets (Check, Compile), and
// evaluates it with the documented semantics (Program.Eval): signed 128-bit
// int and unsigned 256-bit uint, half-open slices, no short-circuit, and any
// runtime error makes the outcome an error.
//
// The provider uses it to refuse mistakes at plan time; the emulator uses it
// to refuse what the service cannot parse and to decide activities. It knows
// nothing of Terraform or HTTP.
//
// The language is not CEL: strings take single quotes only, x[a..b] slices,
// lists have count() rather than size(), any/all/filter/contains, and roots
// are the keywords of each field (eth.tx, approvers, time.now, ...).
package policylang
