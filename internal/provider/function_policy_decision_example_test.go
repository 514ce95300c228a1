package provider

import (
	"os"
	"strings"
	"testing"
)

// TestAccPolicyDecisionExampleHolds applies the function's documented
// example (examples/functions/policy_decision/function.tf, shown on its
// docs page) with the real CLI: every assertion of its check blocks must
// hold, so the page never shows a decision the function does not give.
// Terraform reports a failed check assertion as a warning, so the output
// is read for one.
func TestAccPolicyDecisionExampleHolds(t *testing.T) {
	example, err := os.ReadFile("../../examples/functions/policy_decision/function.tf")
	if err != nil {
		t.Fatal(err)
	}
	cli := newTFCLI(t, newAccEmulator(t))
	cli.write(string(example))
	out := cli.mustRun(0, "apply", "-auto-approve")
	if strings.Contains(out, "Check block assertion failed") || !strings.Contains(out, "Apply complete!") {
		t.Fatalf("the example's checks do not all hold:\n%s", out)
	}
	if n := strings.Count(string(example), "assert {"); n < 5 {
		t.Fatalf("the example has %d assertions; it lost some", n)
	}
}
