package provider

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// timestampValue writes a service timestamp as RFC 3339 (UTC, with
// nanoseconds when there are any); an absent one is null.
func timestampValue(ts client.Timestamp) types.String {
	if ts.IsZero() {
		return types.StringNull()
	}
	t, err := ts.Time()
	if err != nil {
		// Keep what the service said rather than hide it.
		return types.StringValue(ts.Seconds + ts.Text)
	}
	return types.StringValue(t.UTC().Format(time.RFC3339Nano))
}

// optionalString maps the service's omitted (empty) string to null.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// optionalBool maps an omitted bool to null.
func optionalBool(b *bool) types.Bool {
	if b == nil {
		return types.BoolNull()
	}
	return types.BoolValue(*b)
}

// optionalInt maps an omitted number to null.
func optionalInt(n *int) types.Int64 {
	if n == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*n))
}
