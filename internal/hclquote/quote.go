// Package hclquote writes a Go string as an HCL quoted string literal,
// with the hcl library's own quoting, so that every text the provider
// writes as configuration (the import blocks, the access review's
// examples) quotes alike and parses back to the string it quoted.
package hclquote

import (
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// String is s as an HCL quoted string literal: `"`, `\` and the control
// characters HCL has escapes for (`\n`, `\r`, `\t`) escaped as such,
// every other character that is not printable as `\uXXXX` (or
// `\UXXXXXXXX`), and the template sequences `${` and `%{` as `$${` and
// `%%{`. Go's strconv.Quote is not HCL: it writes `\x00` and `\a`, which
// HCL does not read.
//
// The text parses back to s in its Unicode normal form C, which is how
// HCL (through cty) holds every string; the service's ids are ASCII.
func String(s string) string {
	return string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
}
