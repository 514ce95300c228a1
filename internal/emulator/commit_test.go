package emulator

import (
	"fmt"
	"sync"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Parallel submits share state writes, but every answered change must be in
// the file: a second emulator started on the file while the first is still
// running (no Close, as after a crash) holds every policy that was answered.
func TestEveryAnsweredChangeIsOnDisk(t *testing.T) {
	e, path := newPersistentEmulator(t)
	const n = 40
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{
				PolicyName: fmt.Sprintf("p-%d", i), Effect: client.EffectAllow, Notes: "durable"}}})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- got.Result.PolicyIDs[0]
		}()
	}
	wg.Wait()
	close(ids)

	again, err := New(Options{StatePath: path})
	if err != nil {
		t.Fatalf("reading the file: %v", err)
	}
	t.Cleanup(again.Close)
	again.mu.Lock()
	defer again.mu.Unlock()
	held := 0
	for id := range ids {
		held++
		if _, ok := again.st.Policies[id]; !ok {
			t.Errorf("policy %s was answered but is not in the state file", id)
		}
	}
	if held != n {
		t.Fatalf("%d creates answered, want %d", held, n)
	}
	if again.st.Organization.ID != testOrg {
		t.Fatalf("state file organization %q", again.st.Organization.ID)
	}
}

// A new organization is written before any request, so that a restart
// finds it even if nothing was ever changed.
func TestNewStateIsOnDiskBeforeAnyRequest(t *testing.T) {
	_, path := newPersistentEmulator(t)
	again, err := New(Options{StatePath: path})
	if err != nil {
		t.Fatalf("restart on the untouched file: %v", err)
	}
	t.Cleanup(again.Close)
	if id := again.OrganizationID(); id != testOrg {
		t.Fatalf("organization %q after restart, want %q", id, testOrg)
	}
}
