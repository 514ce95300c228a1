package provider

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// textValidator checks a string the way the service does, with one error
// that says what it counts: not empty or only white space (nonBlank), and
// at most maxBytes bytes of UTF-8 (the service's limits, client.Max*Bytes;
// 0 for none).
type textValidator struct {
	maxBytes int
	nonBlank bool
}

// nameText is the check of every name: 1 to client.MaxNameBytes bytes,
// not only white space.
func nameText() validator.String { return textValidator{maxBytes: client.MaxNameBytes, nonBlank: true} }

// maxBytesText is the check of a value the service bounds at maxBytes.
func maxBytesText(maxBytes int) validator.String { return textValidator{maxBytes: maxBytes} }

func (v textValidator) Description(context.Context) string {
	var parts []string
	if v.nonBlank {
		parts = append(parts, "not empty or only white space")
	}
	if v.maxBytes > 0 {
		parts = append(parts, fmt.Sprintf("at most %d bytes (UTF-8)", v.maxBytes))
	}
	return strings.Join(parts, ", ")
}

func (v textValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v textValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	switch {
	case v.nonBlank && strings.TrimSpace(s) == "":
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid value", "must not be empty or only white space.")
	case v.maxBytes > 0 && len(s) > v.maxBytes:
		resp.Diagnostics.AddAttributeError(req.Path, "Value too long", fmt.Sprintf("must be at most %d bytes of UTF-8, as the service counts; "+
			"this one is %d bytes (%d characters).", v.maxBytes, len(s), utf8.RuneCountInString(s)))
	}
}
