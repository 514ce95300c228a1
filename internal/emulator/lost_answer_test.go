package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// lostAnswerClient is a client of e that retries once, quickly.
func lostAnswerClient(t *testing.T, e *testEmulator) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: e.http.URL, OrganizationID: testOrg, APIPublicKey: e.key.PublicKeyHex(),
		APIPrivateKey: e.key.PrivateKeyHex(), Retries: client.RetryUpTo(1), RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond,
		PollInterval: time.Millisecond, PollIntervalMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var lostAnswerPolicy = client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: "same", Effect: client.EffectAllow, Notes: "n"}}}

// createLosingTheAnswer creates lostAnswerPolicy while the faults f are in
// force and wants the outcome to be unknown.
func createLosingTheAnswer(t *testing.T, e *testEmulator, c *client.Client, f Faults) client.Submission {
	t.Helper()
	e.srv.SetFaults(f)
	_, err := c.CreatePolicies(t.Context(), lostAnswerPolicy)
	e.srv.SetFaults(Faults{})
	var lost *client.LostAnswerError
	if !errors.As(err, &lost) {
		t.Fatalf("create under %+v: %v; want a *LostAnswerError", f, err)
	}
	return lost.Submission
}

// TestLostAnswerIsFoundWhenTheServiceActed: every answer to a create is
// dropped after the commit; the submission then finds exactly that
// activity, not another create of identical parameters made since.
func TestLostAnswerIsFoundWhenTheServiceActed(t *testing.T) {
	e := newTestEmulator(t)
	c := lostAnswerClient(t, e)
	sub := createLosingTheAnswer(t, e, c, Faults{DropAfterCommit: FaultRate{First: 2}})
	held := policyIDs(t, e)
	if len(held) != 1 {
		t.Fatalf("policies %v after the lost create, want the one it made", held)
	}
	// The same parameters again, answered: a second object of its own.
	again, err := c.CreatePolicies(t.Context(), lostAnswerPolicy)
	if err != nil {
		t.Fatal(err)
	}

	act, err := lostAnswerClient(t, e).FindSubmission(t.Context(), sub)
	if err != nil || act == nil {
		t.Fatalf("FindSubmission: %+v, %v; want the committed activity", act, err)
	}
	if act.ID == again.Activity.ID {
		t.Fatalf("FindSubmission found %s, the later create of the same parameters", act.ID)
	}
	var result client.CreatePoliciesResult
	if err := client.DecodeResult(client.OpCreatePolicies, act, &result); err != nil || len(result.PolicyIDs) != 1 || result.PolicyIDs[0] != held[0] {
		t.Fatalf("the found activity made %+v (%v), want policy %s", result, err, held[0])
	}
}

// TestLostAnswerIsNotFoundWhenTheServiceDidNot: the service answers 503 to
// every attempt without acting; the answer is lost to the client, and
// the search says that nothing was done.
func TestLostAnswerIsNotFoundWhenTheServiceDidNot(t *testing.T) {
	e := newTestEmulator(t)
	c := lostAnswerClient(t, e)
	// Another create of the same parameters, before: not the lost one.
	if _, err := c.CreatePolicies(t.Context(), lostAnswerPolicy); err != nil {
		t.Fatal(err)
	}
	sub := createLosingTheAnswer(t, e, c, Faults{Down: true})
	if held := policyIDs(t, e); len(held) != 1 {
		t.Fatalf("policies %v, want only the earlier one", held)
	}
	act, err := c.FindSubmission(t.Context(), sub)
	if err != nil || act != nil {
		t.Fatalf("FindSubmission: %+v, %v; want nothing found", act, err)
	}
}

// TestTheRequestersVoteCarriesTheSignedBody: the first vote of an activity
// is its requester's, and its message is the body as signed, as the
// reference describes a vote ("the raw message being signed").
func TestTheRequestersVoteCarriesTheSignedBody(t *testing.T) {
	e := newTestEmulator(t)
	body := submitBody("ACTIVITY_TYPE_CREATE_POLICIES", `{"policies":[{"policyName":"v","effect":"EFFECT_ALLOW","notes":""}]}`)
	if got := e.post(t, "/public/v1/submit/create_policies", body, e.key); got.Status != 200 {
		t.Fatalf("submit: %d %s", got.Status, got.Raw)
	}
	list, err := e.client.ListActivities(t.Context(), client.ListActivitiesRequest{})
	if err != nil || len(list.Activities) != 1 || len(list.Activities[0].Votes) != 1 {
		t.Fatalf("activities %+v, %v", list, err)
	}
	v := list.Activities[0].Votes[0]
	if v.Message != string(body) || v.PublicKey != e.key.PublicKeyHex() || v.Signature == "" {
		t.Fatalf("vote message %q, key %s, signature %q; want the body, the requester's key and its stamp's signature", v.Message, v.PublicKey, v.Signature)
	}
	sum := sha256.Sum256(body)
	if list.Activities[0].Fingerprint != hex.EncodeToString(sum[:]) {
		t.Errorf("fingerprint %s is not the body's hash", list.Activities[0].Fingerprint)
	}
}
