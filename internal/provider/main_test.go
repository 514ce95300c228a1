package provider

import (
	"fmt"
	"os"
	"testing"
)

// TestMain holds the directory of the provider binary built for the CLI
// tests (providerBinaryDir, cli_harness_test.go), shared by all of them,
// and removes it at the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "custody-provider-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	builtProvider.dir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
