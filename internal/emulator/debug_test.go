package emulator

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestRequestArrivalsAreRecorded: every request but the debug ones is
// recorded with its arrival time, in order, whatever the concurrency;
// the reset clears them with the counts.
func TestRequestArrivalsAreRecorded(t *testing.T) {
	e := newTestEmulator(t)
	before := time.Now()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := e.client.Whoami(t.Context(), client.WhoamiRequest{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if resp, err := http.Get(e.http.URL + "/debug/requests"); err != nil {
		t.Fatal(err)
	} else {
		_ = resp.Body.Close()
	}
	after := time.Now()
	got := e.srv.RequestArrivals()
	if len(got) != 20 {
		t.Fatalf("%d arrivals, want the 20 whoami (and not the debug request)", len(got))
	}
	for i, a := range got {
		if a.Operation != "query/whoami" || a.At.Before(before) || a.At.After(after) {
			t.Errorf("arrival %d = %+v, want query/whoami between %v and %v", i, a, before, after)
		}
		if i > 0 && a.At.Before(got[i-1].At) {
			t.Errorf("arrival %d at %v is before arrival %d at %v", i, a.At, i-1, got[i-1].At)
		}
	}
	resp, err := http.Post(e.http.URL+"/debug/requests/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if n := len(e.srv.RequestArrivals()); n != 0 {
		t.Errorf("%d arrivals after the reset, want 0", n)
	}
}

// TestRequestArrivalsKeepTheLatest: a long-running emulator keeps a
// bounded number of arrivals, the latest ones.
func TestRequestArrivalsKeepTheLatest(t *testing.T) {
	e := newTestEmulator(t)
	for i := range maxArrivals + 10 {
		e.srv.counts.add(routeQuery, fmt.Sprint(i))
	}
	got := e.srv.RequestArrivals()
	if len(got) > maxArrivals || len(got) < maxArrivals/2 {
		t.Fatalf("%d arrivals kept, want between %d and %d", len(got), maxArrivals/2, maxArrivals)
	}
	if last := got[len(got)-1].Operation; last != fmt.Sprintf("query/%d", maxArrivals+9) {
		t.Errorf("the last arrival kept is %s, want the latest", last)
	}
}

// TestABudgetedSubmitArrivesLive: submits queued behind a client's
// request budget are stamped when they leave, so each arrives within the
// service's liveness window although the last of them waited for the
// budget far longer than the window; and they arrive at the budget's
// pace, as the recorded arrivals show.
func TestABudgetedSubmitArrivesLive(t *testing.T) {
	const window = 300 * time.Millisecond
	e := newTestEmulator(t, func(o *Options) { o.LivenessWindow = window })
	const perSecond, n = 5, 8 // the last waits 1.4 s, over four windows
	budget, err := client.NewRequestBudget(perSecond)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: e.http.URL, OrganizationID: testOrg, APIPublicKey: e.key.PublicKeyHex(),
		APIPrivateKey: e.key.PrivateKeyHex(), Budget: budget, Retries: client.NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := c.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{
				{PolicyName: fmt.Sprintf("p-%d", i), Effect: client.EffectAllow, Condition: "activity.resource == 'PRIVATE_KEY'", Notes: "n"}}})
			if err != nil {
				t.Errorf("submit %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	got := e.srv.RequestArrivals()
	if len(got) != n {
		t.Fatalf("%d requests, want %d submits", len(got), n)
	}
	// One token at first, then one each 1/perSecond: the last arrival
	// is (n-1)/perSecond after the first, less whatever delayed the first
	// on its way.
	if span, least := got[n-1].At.Sub(got[0].At), time.Duration(n-1)*time.Second/perSecond-100*time.Millisecond; span < least {
		t.Errorf("%d submits arrived within %v, want at least %v at %d a second", n, span, least, perSecond)
	}
}
