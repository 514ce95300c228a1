package provider

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// TestAccConsensusFinishedOffline is the flow examples/emulator/README.md
// documents, with the real CLI and the real custody-emulator binary: an
// apply that needs two root approvals waits, `custody-emulator approve
// -all` votes as the second root user with the keys of the env file, and
// the apply completes. The three creates are one batch: one approval.
func TestAccConsensusFinishedOffline(t *testing.T) {
	k2 := clienttest.NewAPIKey(t)
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.RootUsers = append(o.RootUsers, emulator.RootUser{UserID: "user-2", UserName: "approver", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
	})
	c := newTFCLI(t, e)
	c.env = append(c.env, "CUSTODY_BATCHING_SEND_AFTER=4s") // one batch of the 3 creates, however loaded the machine: see patientBatching
	bin := filepath.Join(t.TempDir(), "custody-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/custody-emulator").CombinedOutput(); err != nil {
		t.Fatalf("go build of the emulator: %v\n%s", err, out)
	}
	// The env file the server writes with -root-quorum 2.
	envFile := filepath.Join(t.TempDir(), "custody-emulator.env")
	writeFile(t, envFile, fmt.Sprintf("export CUSTODY_BASE_URL=%s CUSTODY_ORGANIZATION_ID=%s CUSTODY_API_PUBLIC_KEY=%s\n"+
		"export CUSTODY_ROOT2_API_PUBLIC_KEY=%s CUSTODY_ROOT2_API_PRIVATE_KEY=%s\n", e.url, accOrg, e.key.PublicKeyHex(), k2.PublicKeyHex(), k2.PrivateKeyHex()))

	c.write(countedPolicies{label: "p", count: 3, name: "needs two ", effect: "EFFECT_DENY",
		condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'"}.hcl())
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var applyOut bytes.Buffer
	apply := c.start(ctx, &applyOut, "apply", "-auto-approve")
	approved := 0
	var votes strings.Builder
	for approved < 1 && ctx.Err() == nil {
		time.Sleep(300 * time.Millisecond)
		out, err := exec.CommandContext(ctx, bin, "approve", "-all", "-env-file", envFile).CombinedOutput()
		if err != nil {
			t.Fatalf("custody-emulator approve -all: %v\n%s", err, out)
		}
		votes.Write(out)
		approved += strings.Count(string(out), "approved ")
	}
	if err := apply.Wait(); err != nil || !strings.Contains(applyOut.String(), "Apply complete! Resources: 3 added") {
		t.Fatalf("the apply should complete once approved (%v):\n%s\nvotes:\n%s", err, applyOut.String(), votes.String())
	}
	if got := strings.Count(votes.String(), "ACTIVITY_TYPE_CREATE_POLICIES): ACTIVITY_STATUS_COMPLETED"); got != 1 {
		t.Errorf("approve -all should have completed the one batch of 3 creates, said:\n%s", votes.String())
	}
}
