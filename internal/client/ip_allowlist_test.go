package client

import (
	"testing"
	"time"
)

// createdAt is read as the reference describes it (milliseconds since the
// epoch, a decimal string) and as RFC 3339, which a service may send.
func TestIPAllowlistRuleCreatedReadsBothForms(t *testing.T) {
	want := time.Date(2026, 11, 25, 0, 19, 26, 0, time.UTC)
	for _, s := range []string{"1795565966000", "2026-11-25T00:19:26Z", "2026-11-25T01:19:26+01:00"} {
		got, err := IPAllowlistRule{CIDR: "10.0.0.0/8", CreatedAt: s}.Created()
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("createdAt %q: %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := (IPAllowlistRule{CIDR: "10.0.0.0/8", CreatedAt: "yesterday"}).Created(); err == nil {
		t.Error("createdAt \"yesterday\" was read")
	}
}
