// Package clienttest holds what tests of the packages around the client
// share: a fresh API key, made one way.
package clienttest

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewAPIKey is a new P-256 API key; a failure to make one fails t.
func NewAPIKey(t testing.TB) *client.APIKey {
	t.Helper()
	k, err := client.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
