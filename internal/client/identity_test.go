package client

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// countPaths counts the requests per path.
func countPaths(f *fakeService) map[string]int {
	n := map[string]int{}
	for _, r := range f.all() {
		n[r.Path]++
	}
	return n
}

func TestIdentityCheckFailureIsEveryCallsError(t *testing.T) {
	f := &fakeService{answer: func(_ int, r recorded, w http.ResponseWriter) {
		if r.Path == "/public/v1/query/whoami" {
			writeJSON(w, 403, `{"code":7,"message":"API key belongs to no user of organization org-1"}`)
			return
		}
		writeJSON(w, 200, `{"policies":[]}`)
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.CheckIdentity = true })

	for i := range 3 {
		_, err := c.ListPolicies(t.Context(), ListPoliciesRequest{})
		var idErr *IdentityError
		if !errors.As(err, &idErr) {
			t.Fatalf("call %d: got %v, want an *IdentityError", i+1, err)
		}
		if idErr.OrganizationID != "org-1" || idErr.PublicKey != testKey.PublicKeyHex() || !strings.HasPrefix(idErr.BaseURL, "http://127.0.0.1:") {
			t.Errorf("the error should name what the check was made with, got %+v", idErr)
		}
		if d := Diagnose(err); d.Class != ClassCredentials || d.Operation != QueryWhoami || d.Identity != idErr {
			t.Errorf("Diagnose = %+v, want the whoami's credentials failure", d)
		}
	}
	// The first call went out beside the check; once the check had failed,
	// nothing more was sent.
	if got := countPaths(f); got["/public/v1/query/whoami"] != 1 || got["/public/v1/query/list_policies"] != 1 {
		t.Errorf("requests = %v, want one whoami and one list_policies", got)
	}
}

func TestIdentityCheckRunsOnceBesideTheRequests(t *testing.T) {
	listed := make(chan struct{})
	var once sync.Once
	f := &fakeService{answer: func(_ int, r recorded, w http.ResponseWriter) {
		switch r.Path {
		case "/public/v1/query/whoami":
			// The check answers only once a request has reached the service
			// while it was still running: the two travel side by side.
			select {
			case <-listed:
			case <-time.After(5 * time.Second):
				writeJSON(w, 500, `{"code":13,"message":"the request never arrived beside the check"}`)
				return
			}
			writeJSON(w, 200, `{"organizationId":"org-1","organizationName":"Org","userId":"u-1","username":"terraform"}`)
		default:
			once.Do(func() { close(listed) })
			writeJSON(w, 200, `{"policies":[]}`)
		}
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.CheckIdentity = true; cfg.Retries = NoRetries })
	c.StartIdentityCheck(t.Context())

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := c.ListPolicies(t.Context(), ListPoliciesRequest{}); err != nil {
				t.Errorf("ListPolicies: %v", err)
			}
		})
	}
	wg.Wait()
	who, err := c.Identity(t.Context())
	if err != nil || who.UserID != "u-1" || who.Username != "terraform" {
		t.Fatalf("Identity = %+v, %v", who, err)
	}
	if got := countPaths(f); got["/public/v1/query/whoami"] != 1 || got["/public/v1/query/list_policies"] != 4 {
		t.Errorf("requests = %v, want one whoami and four list_policies", got)
	}
}

func TestIdentityCheckRetriesTransientFailures(t *testing.T) {
	f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
		if n <= 2 {
			writeJSON(w, 503, `{"code":14,"message":"unavailable"}`)
			return
		}
		writeJSON(w, 200, `{"organizationId":"org-1","organizationName":"Org","userId":"u-1","username":"terraform"}`)
	}}
	c, s := newTestClient(t, f, func(cfg *Config) { cfg.CheckIdentity = true })
	if _, err := c.Identity(t.Context()); err != nil {
		t.Fatalf("Identity: %v", err)
	}
	if len(s.all()) != 2 || len(f.all()) != 3 {
		t.Errorf("want 2 waits and 3 attempts, got %v and %d", s.all(), len(f.all()))
	}
}

func TestNoIdentityCheckUnlessAsked(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 200, `{"policies":[]}`) }}
	c, _ := newTestClient(t, f)
	c.StartIdentityCheck(t.Context())
	if _, err := c.ListPolicies(t.Context(), ListPoliciesRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := countPaths(f); len(got) != 1 || got["/public/v1/query/list_policies"] != 1 {
		t.Errorf("requests = %v, want only the list_policies", got)
	}
}
