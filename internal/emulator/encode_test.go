package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// encodeState must write the document json.Marshal writes, also after
// activities change (a vote, a rejection) between two writes.
func TestEncodeStateIsTheStateAsJSON(t *testing.T) {
	e, second := quorumEmulator(t)
	same := func(step string) {
		t.Helper()
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		got, err := encodeState(e.srv.st)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(e.srv.st)
		if err != nil {
			t.Fatal(err)
		}
		var g, w map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: encodeState wrote invalid JSON: %v", step, err)
		}
		_ = json.Unmarshal(want, &w)
		if w["activities"] == nil { // omitempty: json.Marshal leaves out an empty map
			w["activities"] = map[string]any{}
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: encodeState differs from json.Marshal:\n%s\n%s", step, got, want)
		}
	}
	same("fresh")
	var fps []string
	for i := range 3 {
		_, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{
			PolicyName: fmt.Sprintf("p-%d", i), Effect: client.EffectAllow, Notes: "n"}}})
		var ar *client.ApprovalRequiredError
		if !errors.As(err, &ar) {
			t.Fatalf("want the activity to wait for a second approval, got %v", err)
		}
		fps = append(fps, ar.Fingerprint)
		same(fmt.Sprintf("after create %d", i))
	}
	// Approving and rejecting finishes them; a second write sees the change.
	if _, err := second.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: fps[0]}); err != nil {
		t.Fatal(err)
	}
	same("after an approval")
	if _, err := second.RejectActivity(t.Context(), client.VoteParams{Fingerprint: fps[1]}); err != nil {
		t.Fatal(err)
	}
	same("after a rejection")
	same("written again")
}
