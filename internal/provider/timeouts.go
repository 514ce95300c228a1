package provider

import (
	"context"
	"fmt"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Two resources phrase the timeout of each of their activities alike:
// waitFor(op) describes it for custody_private_key_tag and
// custody_webhook_endpoint, "How long create waits for `<type>`" +
// waitDefault for custody_ip_allowlist and custody_oauth_provider.
const (
	waitConsensus = " as a Go duration such as `30m`, approvals by other users (consensus) included. Defaults to the provider's `approval_timeout`."
	waitDefault   = ", approvals included, as a Go duration such as `30m` (default: the provider's `approval_timeout`, 20m)."
)

// waitFor describes the timeout of an operation that waits for op.
func waitFor(op client.Operation) string {
	return "How long to wait for `" + op.Type + "`" + waitConsensus
}

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
