package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// timeoutsAttribute is the timeouts block of opts, described as a whole by
// desc. timeouts.Attributes always builds a schema.SingleNestedAttribute;
// anything else means the timeouts module changed under us, a programming
// error caught when the schema is first built.
func timeoutsAttribute(ctx context.Context, opts timeouts.Opts, desc string) schema.SingleNestedAttribute {
	attr := timeouts.Attributes(ctx, opts)
	a, ok := attr.(schema.SingleNestedAttribute)
	if !ok {
		panic(fmt.Sprintf("timeouts.Attributes returned %T, want schema.SingleNestedAttribute", attr))
	}
	a.MarkdownDescription = desc
	return a
}
