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
	example, _ := applyFunctionExample(t, "policy_decision")
	if n := strings.Count(example, "assert {"); n < 5 {
		t.Fatalf("the example has %d assertions; it lost some", n)
	}
}

// applyFunctionExample applies the documented example of the function
// name (examples/functions/<name>/function.tf) with the real CLI against a
// fresh emulator, and fails the test unless the apply completes with every
// check assertion holding. It returns the example and the apply's output.
func applyFunctionExample(t *testing.T, name string) (example, out string) {
	t.Helper()
	b, err := os.ReadFile("../../examples/functions/" + name + "/function.tf")
	if err != nil {
		t.Fatal(err)
	}
	cli := newTFCLI(t, newAccEmulator(t))
	cli.write(string(b))
	out = cli.mustRun(0, "apply", "-auto-approve")
	if strings.Contains(out, "Check block assertion failed") || !strings.Contains(out, "Apply complete!") {
		t.Fatalf("the example's checks do not all hold:\n%s", out)
	}
	return string(b), out
}
