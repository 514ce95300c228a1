package client

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

// budgetOnClock is a budget of perSecond whose waits advance clock
// instead of sleeping, like the client's own waits in these tests.
func budgetOnClock(t *testing.T, perSecond float64, clock *testclock.Clock) *RequestBudget {
	t.Helper()
	b, err := NewRequestBudget(perSecond)
	if err != nil {
		t.Fatal(err)
	}
	b.now, b.sleep = clock.Now, clock.Sleep
	return b
}

// arrivalClock is a fake service's record of when, by clock, each request
// arrived.
type arrivalClock struct {
	clock *testclock.Clock
	mu    sync.Mutex
	at    []time.Duration // since start
	start time.Time
}

func (a *arrivalClock) arrived() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = append(a.at, a.clock.Now().Sub(a.start))
}

func (a *arrivalClock) all() []time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Duration(nil), a.at...)
}

// clockedService is a fake service answering with answer, which records
// when by a fake clock each request arrived.
func clockedService(answer func(n int, r recorded, w http.ResponseWriter)) (*testclock.Clock, *arrivalClock, *fakeService) {
	clock := testclock.New(time.Unix(1795300000, 0))
	arrivals := &arrivalClock{clock: clock, start: clock.Now()}
	return clock, arrivals, &fakeService{answer: func(n int, r recorded, w http.ResponseWriter) {
		arrivals.arrived()
		answer(n, r, w)
	}}
}

// TestBudgetStampsASubmitWhenItLeaves: a submit takes its token before its
// timestampMs is set, so a submit that waited a second for the budget is
// stamped a second later, when it leaves; a timestamp set before the wait
// would arrive that much stale, and the service refuses stale timestamps.
func TestBudgetStampsASubmitWhenItLeaves(t *testing.T) {
	clock := testclock.New(time.UnixMilli(1795300000000))
	b := budgetOnClock(t, 1, clock)
	f := pollingService(StatusCompleted)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Budget = b })
	c.now, c.sleep = clock.Now, clock.Sleep
	start := clock.Now()
	if err := b.take(t.Context(), nil); err != nil { // another request had the token
		t.Fatal(err)
	}
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
		t.Fatal(err)
	}
	reqs := f.all()
	var env Envelope
	if err := json.Unmarshal(reqs[0].Body, &env); err != nil {
		t.Fatal(err)
	}
	ts, err := strconv.ParseInt(env.TimestampMs, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := time.UnixMilli(ts).Sub(start), time.Second; got != want {
		t.Errorf("timestampMs is %v after the submit joined the budget's queue, want %v: the moment it got its token", got, want)
	}
}

// TestBudgetSpacesEveryRequest: at one request per second, a submit, its
// retry after a 429, its poll and a query each take a token before they
// are sent, so they arrive a second apart, although the retry's backoff
// and the poll interval are 10 ms.
func TestBudgetSpacesEveryRequest(t *testing.T) {
	clock, arrivals, f := clockedService(func(n int, r recorded, w http.ResponseWriter) {
		switch n {
		case 1:
			writeJSON(w, http.StatusTooManyRequests, `{"code":8,"message":"slow down"}`)
		case 2:
			writeJSON(w, 200, activityJSON(StatusPending, true))
		case 3:
			writeJSON(w, 200, activityJSON(StatusCompleted, false))
		default:
			writeJSON(w, 200, `{"policies":[]}`)
		}
	})
	c, _ := newTestClient(t, f, func(cfg *Config) {
		cfg.Budget = budgetOnClock(t, 1, clock)
		cfg.PollInterval, cfg.RetryWaitMin = 10*time.Millisecond, 10*time.Millisecond
	})
	c.now, c.sleep = clock.Now, clock.Sleep
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPolicies(t.Context(), ListPoliciesRequest{}); err != nil {
		t.Fatal(err)
	}
	paths := []string{}
	for _, r := range f.all() {
		paths = append(paths, r.Path)
	}
	want := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}
	if got := arrivals.all(); !slices.Equal(got, want) {
		t.Errorf("requests %v arrived at %v, want %v: one token a second", paths, got, want)
	}
}

// TestBudgetTokenAfterRetryAfter: a retry takes its token after the wait
// the service asked for, so the two add up rather than overlap: at one
// request every two seconds, a 429 asking for one second is retried two
// seconds after the first attempt (the token's time), not one (no token)
// nor three (a token taken before the Retry-After wait).
func TestBudgetTokenAfterRetryAfter(t *testing.T) {
	clock, arrivals, f := clockedService(func(n int, r recorded, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, `{"code":8,"message":"slow down"}`)
			return
		}
		writeJSON(w, 200, `{"policies":[]}`)
	})
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Budget = budgetOnClock(t, 0.5, clock) })
	c.now, c.sleep = clock.Now, clock.Sleep
	if _, err := c.ListPolicies(t.Context(), ListPoliciesRequest{}); err != nil {
		t.Fatal(err)
	}
	if got, want := arrivals.all(), []time.Duration{0, 2 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("arrivals at %v, want %v", got, want)
	}
}

// TestBudgetIsSharedByItsClients: one budget caps every client given it,
// their With* copies, and the webhook key set they fetch, together.
func TestBudgetIsSharedByItsClients(t *testing.T) {
	clock, arrivals, f := clockedService(func(_ int, r recorded, w http.ResponseWriter) {
		if r.Path == WebhookKeySetPath {
			writeJSON(w, 200, `{"keys":[{"kid":"k1"}]}`)
			return
		}
		writeJSON(w, 200, `{"policies":[]}`)
	})
	b := budgetOnClock(t, 2, clock)
	one, _ := newTestClient(t, f, func(cfg *Config) { cfg.Budget = b })
	two, _ := newTestClient(t, f, func(cfg *Config) { cfg.Budget = b })
	for _, c := range []*Client{one, two, one.WithOrganization("org-2")} {
		if _, err := c.ListPolicies(t.Context(), ListPoliciesRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := two.GetWebhookKeySet(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}
	if got := arrivals.all(); !slices.Equal(got, want) {
		t.Errorf("arrivals at %v, want %v: two a second across the clients", got, want)
	}
}

// TestBudgetWaitEndsWithItsContext: a request waiting for its token stops
// when its context ends, with the context's error, and is not sent: a
// submit included, which an interrupt stops at once (nothing was sent, so
// there is nothing to see through), not after InterruptGrace.
func TestBudgetWaitEndsWithItsContext(t *testing.T) {
	f := pollingService(StatusCompleted)
	b, err := NewRequestBudget(1.0 / 3600) // the next token in an hour
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Budget = b })
	if err := b.take(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(ctx context.Context) error{
		"query": func(ctx context.Context) error {
			_, err := c.ListPolicies(ctx, ListPoliciesRequest{})
			return err
		},
		"submit": func(ctx context.Context) error {
			_, err := c.CreatePolicies(ctx, onePolicy)
			return err
		},
	}
	ends := map[string]func() (context.Context, context.CancelFunc){
		"canceled": func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(20*time.Millisecond, cancel)
			return ctx, cancel
		},
		"deadline": func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(t.Context(), 20*time.Millisecond)
		},
	}
	for name, call := range calls {
		for how, end := range ends {
			ctx, cancel := end()
			started := time.Now()
			err := call(ctx)
			took := time.Since(started)
			cancel()
			var lost *LostAnswerError
			switch {
			case !errors.Is(err, ctx.Err()) || ctx.Err() == nil:
				t.Errorf("%s, %s: error %v, want the context's (%v)", name, how, err, ctx.Err())
			case errors.As(err, &lost):
				t.Errorf("%s, %s: a lost answer (%v), but nothing was sent", name, how, err)
			case took > 5*time.Second:
				t.Errorf("%s, %s: returned after %v, not when its context ended", name, how, took)
			}
		}
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("%d requests sent without a token", n)
	}
}

// TestBudgetDoesNotBurstAfterAStall: requests that wait for the budget
// while the process is stalled (descheduled on a busy machine) go out at
// the budget's pace once it resumes, not all at once: a token is taken
// when a request goes, never booked for a moment that the stall may
// carry it past.
func TestBudgetDoesNotBurstAfterAStall(t *testing.T) {
	const perSecond, waiters = 20, 4 // 50 ms apart
	b, err := NewRequestBudget(perSecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.take(t.Context(), nil); err != nil { // the bucket's one token
		t.Fatal(err)
	}
	stallEnd := time.Now().Add(300 * time.Millisecond)
	b.sleep = func(ctx context.Context, d time.Duration) error {
		// Nobody wakes before the stall ends.
		return sleepContext(ctx, max(d, time.Until(stallEnd)))
	}
	var mu sync.Mutex
	var sent []time.Time
	var wg sync.WaitGroup
	for range waiters {
		wg.Go(func() {
			if err := b.take(t.Context(), nil); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			sent = append(sent, time.Now())
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(sent, time.Time.Compare)
	for i := 1; i < len(sent); i++ {
		if gap := sent[i].Sub(sent[i-1]); gap < time.Second/perSecond-5*time.Millisecond {
			t.Errorf("after the stall, requests %d and %d went %v apart, want the budget's %v", i-1, i, gap, time.Second/perSecond)
		}
	}
}

// TestBudgetSpendsNoTokenOnAnAbandonedWait: a request that gave up
// waiting spent no token, so the next one waits one interval, not two.
func TestBudgetSpendsNoTokenOnAnAbandonedWait(t *testing.T) {
	clock := testclock.New(time.Unix(1795300000, 0))
	b := budgetOnClock(t, 1, clock)
	ctx := t.Context()
	if err := b.take(ctx, nil); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	b.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() } // given up at once
	if err := b.take(canceled, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	b.sleep = clock.Sleep
	var waited time.Duration
	if err := b.take(ctx, func(d time.Duration) { waited = d }); err != nil {
		t.Fatal(err)
	}
	if waited != time.Second {
		t.Errorf("the next request waited %v, want 1s", waited)
	}
}

func TestNewRequestBudgetRefusesNonPositiveRates(t *testing.T) {
	for _, r := range []float64{0, -1, math.Inf(1), math.NaN()} {
		_, err := NewRequestBudget(r)
		var cfgErr *ConfigError
		if !errors.As(err, &cfgErr) || cfgErr.Field != FieldBudget {
			t.Errorf("NewRequestBudget(%v) = %v, want a *ConfigError about %s", r, err, FieldBudget)
		}
	}
	if b, err := NewRequestBudget(0.5); err != nil || b.PerSecond() != 0.5 {
		t.Errorf("NewRequestBudget(0.5) = %v, %v", b, err)
	}
}
