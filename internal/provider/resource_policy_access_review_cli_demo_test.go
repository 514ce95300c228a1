package provider

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// reviewRow is the first line of a row of an "Access change" warning:
// the activity types, then the verdicts before and after.
var reviewRow = regexp.MustCompile(`(?m)^  (ACTIVITY_TYPE_\S+(?:, ACTIVITY_TYPE_\S+)*): (OUTCOME_\S+) -> (OUTCOME_\S+)$`)

// TestAccessReviewCLI_demoDestroy plans the destroy of `make demo`'s own
// configuration (examples/demo) as the demo does, and reads the review of
// the bootstrap grant, "Terraform manages policies" (an allow of every
// policy activity, consensus the Terraform user, who is a root user
// here): at most 3 rows, and no root user in any of them, since no
// approver the review considers is a root user.
func TestAccessReviewCLI_demoDestroy(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	c := newTFCLI(t, e)
	for _, f := range []string{"main.tf", "variables.tf", "outputs.tf"} {
		writeFile(t, filepath.Join(c.dir, f), string(mustReadFile(t, filepath.Join("../../examples/demo", f))))
	}
	c.mustRun(0, "apply", "-auto-approve")
	who, err := e.client.Whoami(t.Context(), client.WhoamiRequest{})
	if err != nil {
		t.Fatal(err)
	}

	out, _ := c.run(nil, "plan", "-destroy", "-json")
	grant := reviewDiags(planDiagnostics(out), "Access change: Terraform manages policies")
	if len(grant) != 1 {
		t.Fatalf("want one review of the bootstrap grant's destroy, got %d:\n%s", len(grant), out)
	}
	detail := grant[0].Detail
	rows := reviewRow.FindAllStringSubmatch(detail, -1)
	if len(rows) == 0 || len(rows) > 3 {
		t.Errorf("the bootstrap grant's destroy gives %d rows, want 1 to 3:\n%s", len(rows), detail)
	}
	for _, r := range rows {
		if r[2] == r[3] {
			t.Errorf("a row that moves nothing: %s", r[0])
		}
	}
	if !strings.Contains(detail, "ACTIVITY_TYPE_CREATE_POLICY") || !strings.Contains(detail, "OUTCOME_DENY_IMPLICIT") {
		t.Errorf("the destroy should take policy creation back to the implicit deny:\n%s", detail)
	}
	if strings.Contains(detail, who.UserID) {
		t.Errorf("a row names the root user %s (the Terraform user), who is never the requester or an approver:\n%s", who.UserID, detail)
	}
}
