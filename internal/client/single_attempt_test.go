package client

import (
	"context"
	"net/http"
	"testing"
)

// TestSingleAttemptIsNotRetried: a read made ahead of need meets a 503 and
// gives up at once; the identity check it starts retries as the client
// does.
func TestSingleAttemptIsNotRetried(t *testing.T) {
	// The service answers every request 503, which the client retries.
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 503, `{"code":14,"message":"unavailable"}`)
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.CheckIdentity = true })
	if _, err := c.ListPolicies(SingleAttempt(context.Background()), ListPoliciesRequest{}); err == nil {
		t.Fatal("a single attempt against a 503 should fail")
	}
	lists := countPaths(f)["/public/v1/query/list_policies"]
	if lists != 1 {
		t.Fatalf("%d list_policies sent, want 1: a single attempt is not retried", lists)
	}
	if _, err := c.Identity(context.Background()); err == nil {
		t.Fatal("the identity check against a 503 should fail")
	}
	whoamis := countPaths(f)["/public/v1/query/whoami"]
	if whoamis < 2 {
		t.Fatalf("%d whoami sent: the identity check that a single attempt started must retry as the client does", whoamis)
	}
}
