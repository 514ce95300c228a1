package client

import (
	"context"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"
)

// RequestBudget caps how many requests per second the clients that share
// it send, together: queries, polls, submits, their retries and the
// webhook key set alike. A custody organization's API quota also serves
// its production signing; a budget keeps Terraform's share of it bounded.
//
// It is a token bucket (golang.org/x/time/rate) that holds one token: a
// request takes a token before it is sent, and waits for one, as long as
// its context allows, when there is none. With one token there is no
// burst after an idle spell: in any stretch of T seconds the clients send
// at most perSecond·T + 1 requests. A larger bucket would let an apply
// that has been planning for a while open with a volley, which is what
// the budget is there to prevent; the long-run rate is the same either
// way.
//
// A token is taken when the request is about to go, never booked ahead:
// the waiters queue (first come, first served) and only the first of
// them waits for the bucket. Booking each waiter a future moment, as
// rate.Limiter.Wait does, lets a process that the machine stalled past
// several of those moments send all of them at once when it resumes; a
// provider shares its machine with Terraform and whatever else runs.
//
// Where a request takes its token is what makes the cap hold without
// harm: a submit takes it before its timestampMs is set, so that a submit
// queued behind the budget does not arrive stale (the service refuses a
// timestamp outside its liveness window); a retry takes its own after
// the wait the service asked for (Retry-After), so that the two waits
// add up rather than overlap. That is why the budget lives here and not
// in an http.RoundTripper, which sees a request only once its body, and
// timestamp, are fixed.
type RequestBudget struct {
	limiter   *rate.Limiter
	perSecond float64
	// queue holds the one waiter that waits for the bucket; the others
	// wait, in order, to hold it.
	queue chan struct{}
	now   func() time.Time                                 // replaced by tests
	sleep func(ctx context.Context, d time.Duration) error // replaced by tests
}

// NewRequestBudget returns a budget of perSecond requests per second, which
// must be positive and finite; fractions (0.5: one request every two
// seconds) are allowed. Errors are *ConfigError about FieldBudget.
func NewRequestBudget(perSecond float64) (*RequestBudget, error) {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return nil, configError(FieldBudget, "the request budget must be a positive number of requests per second, got %v", perSecond)
	}
	return &RequestBudget{limiter: rate.NewLimiter(rate.Limit(perSecond), 1), perSecond: perSecond, queue: make(chan struct{}, 1),
		now: time.Now, sleep: sleepContext}, nil
}

// PerSecond is the budget's rate.
func (b *RequestBudget) PerSecond() float64 { return b.perSecond }

// Budget is the client's request budget, nil when it has none.
func (c *Client) Budget() *RequestBudget { return c.budget }

// take waits for a token for one request; a nil budget returns at once.
// Before a wait, it tells onWait (when set) how long it will be. When ctx
// ends first, the error is ctx's, so that callers tell an interrupt or a
// deadline as they always do; the request is then not sent, and no token
// was spent on it.
func (b *RequestBudget) take(ctx context.Context, onWait func(time.Duration)) error {
	if b == nil {
		return nil
	}
	select {
	case b.queue <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-b.queue }()
	told := false
	for {
		now := b.now()
		if b.limiter.AllowN(now, 1) {
			return nil
		}
		// The time until the bucket holds a whole token again, rounded up;
		// a wait cut short by rounding only goes round once more.
		missing := 1 - b.limiter.TokensAt(now)
		wait := time.Duration(math.Ceil(missing / b.perSecond * float64(time.Second)))
		if onWait != nil && !told {
			onWait(wait)
			told = true
		}
		if err := b.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// takeToken is take for one request of op, logging the waits.
func (c *Client) takeToken(ctx context.Context, op string) error {
	return c.budget.take(ctx, func(wait time.Duration) {
		c.debug(ctx, "waiting for the request budget", map[string]any{"operation": op, "wait": wait.String(), "per_second": c.budget.perSecond})
	})
}

// notSent is the error of a request that ctx ended while it waited for
// its token: nothing was sent.
func notSent(op string, err error) error {
	return fmt.Errorf("%s: not sent: waiting for the request budget: %w", op, err)
}
