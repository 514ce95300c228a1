package emulator

import (
	"bytes"
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
		got, err := encodeState(e.srv.st, &e.srv.encoded)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(e.srv.st)
		if err != nil {
			t.Fatal(err)
		}
		// Each member once: a second would silently win on load.
		if dup := duplicateMember(t, got); dup != "" {
			t.Fatalf("%s: member %s appears twice in the document", step, dup)
		}
		var g, w map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: encodeState wrote invalid JSON: %v", step, err)
		}
		_ = json.Unmarshal(want, &w)
		for _, k := range []string{"activities", "policyEvaluations"} {
			if w[k] == nil { // omitempty: json.Marshal leaves out an empty map
				w[k] = map[string]any{}
			}
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
		var needed *client.ConsensusNeededError
		if !errors.As(err, &needed) {
			t.Fatalf("want the activity to wait for a second approval, got %v", err)
		}
		fps = append(fps, needed.Fingerprint)
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

// duplicateMember returns a top-level member name that appears twice in
// the JSON object doc, or "".
func duplicateMember(t *testing.T, doc []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v %v", tok, err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		name, _ := tok.(string)
		if seen[name] {
			return name
		}
		seen[name] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return ""
}
