package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// An interrupt (ctx canceled) must never leave an activity that the
// service may have run without its outcome: the caller could not record
// it, and its next run would do it again.

func TestInterruptBeforeSubmitSendsNothing(t *testing.T) {
	f := pollingService(StatusCompleted)
	c, _ := newTestClient(t, f)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.CreatePolicies(ctx, onePolicy)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("error = %v, want context.Canceled saying nothing was sent", err)
	}
	if n := len(f.all()); n != 0 {
		t.Fatalf("%d requests sent after the interrupt, want 0", n)
	}
}

func TestInterruptedRequestStillGetsItsAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	f := &fakeService{answer: func(n int, r recorded, w http.ResponseWriter) {
		// The interrupt arrives while the service is running the activity.
		cancel()
		time.Sleep(20 * time.Millisecond)
		writeJSON(w, 200, activityJSON(StatusCompleted, true))
	}}
	c, _ := newTestClient(t, f)
	got, err := c.CreatePolicies(ctx, onePolicy)
	if err != nil || got.Result.PolicyIDs[0] != "p-7" {
		t.Fatalf("got %+v, %v; want the completed activity's result", got, err)
	}
	if n := len(f.all()); n != 1 {
		t.Fatalf("%d requests, want the one submit", n)
	}
}

func TestInterruptedPollingFollowsThePendingActivity(t *testing.T) {
	f := pollingService(StatusPending, StatusPending, StatusCompleted)
	c, _ := newTestClient(t, f)
	ctx, cancel := context.WithCancel(t.Context())
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel() // interrupted at the first poll
		return ctx.Err()
	}
	got, err := c.CreatePolicies(ctx, onePolicy)
	if err != nil || got.Result.PolicyIDs[0] != "p-7" {
		t.Fatalf("got %+v, %v; want the result of the activity it saw through", got, err)
	}
}

func TestInterruptGraceBoundsPolling(t *testing.T) {
	f := pollingService(StatusPending)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.InterruptGrace = 50 * time.Millisecond })
	ctx, cancel := context.WithCancel(t.Context())
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepContext(ctx, time.Millisecond)
	}
	start := time.Now()
	_, err := c.CreatePolicies(ctx, onePolicy)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "act-9") {
		t.Fatalf("error = %v, want context.Canceled naming the activity", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("polling went on for %v after the interrupt, want about the 50 ms grace", took)
	}
}

func TestInterruptEndsTheWaitForApprovals(t *testing.T) {
	f := pollingService(StatusConsensusNeeded)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.ApprovalWait = time.Hour })
	ctx, cancel := context.WithCancel(t.Context())
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepContext(ctx, d)
	}
	start := time.Now()
	_, err := c.CreatePolicies(ctx, onePolicy)
	var needed *ConsensusNeededError
	if !errors.As(err, &needed) || needed.ActivityID != "act-9" {
		t.Fatalf("error = %v, want *ConsensusNeededError for act-9 (a later run adopts it)", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("waited %v for approvals after the interrupt, want an immediate return", took)
	}
}

func TestSeeThroughKeepsTheDeadline(t *testing.T) {
	c, _ := newTestClient(t, pollingService(StatusCompleted))
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	sctx, done := c.SeeThrough(ctx)
	defer done()
	want, _ := ctx.Deadline()
	if got, ok := sctx.Deadline(); !ok || !got.Equal(want) {
		t.Fatalf("deadline = %v, %v; want %v", got, ok, want)
	}
	cancel()
	if sctx.Err() != nil {
		t.Fatal("the see-through context ended with the interrupt, want it to last the grace")
	}
}
