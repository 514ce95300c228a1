package policyset_test

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/policysettest"
)

// TestDecisionTable runs the shared table of decisions against the engine;
// the emulator's and the function's suites run the same table.
func TestDecisionTable(t *testing.T) {
	cases, err := policysettest.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("the table has %d cases; it lost some", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			req, err := c.EngineRequest()
			if err != nil {
				t.Fatal(err)
			}
			if why := c.Mismatch(policyset.Decide(c.EnginePolicies(), req)); why != "" {
				t.Error(why)
			}
		})
	}
}
