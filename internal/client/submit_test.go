package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

// activityJSON writes an activity of create_policies in the given status;
// timestamps use the submit (string) or get_activity (object) shape.
func activityJSON(status string, submitShape bool) string {
	ts := `{"seconds":"1795300000","nanos":"5000"}`
	if submitShape {
		ts = `"2026-11-21T22:00:00Z"`
	}
	result := `{}`
	failure := ``
	switch status {
	case StatusCompleted:
		result = `{"createPoliciesResult":{"policyIds":["p-7"]}}`
	case StatusFailed:
		failure = `,"failure":{"code":3,"message":"condition: syntax error at 1:5","details":[{"@type":"type.googleapis.com/x"}]}`
	}
	return fmt.Sprintf(`{"activity":{"id":"act-9","organizationId":"org-1","status":%q,"type":"ACTIVITY_TYPE_CREATE_POLICIES",
 "intent":{"createPoliciesIntent":{"policies":[]}},"result":%s,"votes":[],"fingerprint":"fp-9","canApprove":true,"canReject":true,
 "createdAt":%s,"updatedAt":%s%s}}`, status, result, ts, ts, failure)
}

// pollingService answers the submit with PENDING, then get_activity with
// the given statuses in turn.
func pollingService(statuses ...string) *fakeService {
	return &fakeService{answer: func(n int, r recorded, w http.ResponseWriter) {
		if n == 1 {
			writeJSON(w, 200, activityJSON(StatusPending, true))
			return
		}
		i := min(n-2, len(statuses)-1)
		writeJSON(w, 200, activityJSON(statuses[i], false))
	}}
}

func TestPollingToEachTerminalStatus(t *testing.T) {
	tests := []struct {
		final string
		check func(t *testing.T, got *Submitted[CreatePoliciesResult], err error)
	}{
		{StatusCompleted, func(t *testing.T, got *Submitted[CreatePoliciesResult], err error) {
			if err != nil || got.Result.PolicyIDs[0] != "p-7" || got.Activity.Status != StatusCompleted {
				t.Fatalf("got %+v, %v", got, err)
			}
		}},
		{StatusFailed, func(t *testing.T, _ *Submitted[CreatePoliciesResult], err error) {
			var ae *ActivityError
			if !errors.As(err, &ae) || ae.ActivityID != "act-9" || ae.Status != StatusFailed || ae.Failure == nil || ae.Failure.Code != CodeInvalidArgument {
				t.Fatalf("error = %#v", err)
			}
			if !strings.Contains(err.Error(), "act-9") || !strings.Contains(err.Error(), "syntax error at 1:5") {
				t.Fatalf("message %q lacks the id or the failure", err)
			}
		}},
		{StatusRejected, func(t *testing.T, _ *Submitted[CreatePoliciesResult], err error) {
			var ae *ActivityError
			if !errors.As(err, &ae) || ae.Status != StatusRejected || ae.Fingerprint != "fp-9" {
				t.Fatalf("error = %#v", err)
			}
		}},
		{StatusConsensusNeeded, func(t *testing.T, _ *Submitted[CreatePoliciesResult], err error) {
			var needed *ConsensusNeededError
			if !errors.As(err, &needed) || needed.ActivityID != "act-9" || needed.Status != StatusConsensusNeeded || needed.Fingerprint != "fp-9" {
				t.Fatalf("error = %#v", err)
			}
		}},
		{StatusAuthenticatorsNeeded, func(t *testing.T, _ *Submitted[CreatePoliciesResult], err error) {
			var needed *ConsensusNeededError
			if !errors.As(err, &needed) || needed.Status != StatusAuthenticatorsNeeded {
				t.Fatalf("error = %#v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.final, func(t *testing.T) {
			f := pollingService(StatusCreated, StatusPending, tt.final)
			c, s := newTestClient(t, f, func(cfg *Config) {
				cfg.PollInterval = 100 * time.Millisecond
				cfg.PollIntervalMax = 150 * time.Millisecond
			})
			got, err := c.CreatePolicies(t.Context(), onePolicy)
			tt.check(t, got, err)
			reqs := f.all()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want submit + 3 polls", len(reqs))
			}
			for _, r := range reqs[1:] {
				if r.Path != "/public/v1/query/get_activity" || string(r.Body) != `{"organizationId":"org-1","activityId":"act-9"}` {
					t.Errorf("poll %s %s", r.Path, r.Body)
				}
			}
			want := []time.Duration{100 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond}
			if w := s.all(); fmt.Sprint(w) != fmt.Sprint(want) {
				t.Errorf("poll waits = %v, want backoff capped at the max %v", w, want)
			}
		})
	}
}

func TestApprovalWaitKeepsPollingUntilConsensus(t *testing.T) {
	f := pollingService(StatusConsensusNeeded, StatusConsensusNeeded, StatusCompleted)
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.ApprovalWait = time.Minute })
	clock := testclock.New(time.Unix(1795300000, 0))
	c.now, c.sleep = clock.Now, clock.Sleep
	got, err := c.CreatePolicies(t.Context(), onePolicy)
	if err != nil || got.Result.PolicyIDs[0] != "p-7" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestApprovalWaitHasItsOwnDeadline(t *testing.T) {
	f := pollingService(StatusConsensusNeeded)
	c, _ := newTestClient(t, f)
	c = c.WithApprovalWait(10 * time.Second)
	clock := testclock.New(time.Unix(1795300000, 0))
	c.now, c.sleep = clock.Now, clock.Sleep
	start := clock.Now()
	_, err := c.CreatePolicies(t.Context(), onePolicy)
	var needed *ConsensusNeededError
	if !errors.As(err, &needed) {
		t.Fatalf("error = %v, want *ConsensusNeededError", err)
	}
	if waited := clock.Now().Sub(start); waited < 10*time.Second || waited > 11*time.Second {
		t.Errorf("waited %v for approval, want the 10 s approval wait", waited)
	}
}

// TestAnApprovalWaitNeverOutlastsItsContext: a wait for approvals longer
// than its context ends, before the context, as an approval timeout that
// names the activity, never as a poll cut short (a lost answer, which
// the provider would save as a lost answer). Every run, and with no bound
// of the client's own too. The wait's start is logged at INFO with what an
// approver needs.
func TestAnApprovalWaitNeverOutlastsItsContext(t *testing.T) {
	// A context of a second leaves a margin of 100 ms for the last poll:
	// a loopback poll under -race, beside the other packages' tests on two
	// cores, once took more than the 20 ms of a 200 ms context.
	const timeout = time.Second
	for name, tc := range map[string]struct{ wait, slow time.Duration }{
		"10s":                {wait: 10 * time.Second},
		"until the deadline": {wait: ApprovalWaitUntilDeadline},
		// Each answer takes longer than the margin: the last poll runs
		// into the deadline.
		"slow answers": {wait: 10 * time.Second, slow: ApprovalMargin(timeout) * 3 / 2},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each waits out its contexts: 8 s
			var mu sync.Mutex
			var logged []map[string]any
			f := pollingService(StatusConsensusNeeded)
			if answer := f.answer; tc.slow > 0 {
				f.answer = func(n int, r recorded, w http.ResponseWriter) { time.Sleep(tc.slow); answer(n, r, w) }
			}
			wait := tc.wait
			c, _ := newTestClient(t, f, func(cfg *Config) {
				cfg.ApprovalWait, cfg.PollInterval, cfg.PollIntervalMax = wait, 5*time.Millisecond, 20*time.Millisecond
				cfg.Info = func(_ context.Context, msg string, fields ...map[string]any) {
					mu.Lock()
					defer mu.Unlock()
					logged = append(logged, map[string]any{"msg": msg, "fields": fields})
				}
			})
			c.sleep = sleepContext
			const runs = 8
			for range runs {
				ctx, cancel := context.WithTimeout(t.Context(), timeout)
				_, err := c.CreatePolicies(ctx, onePolicy)
				ended := ctx.Err()
				cancel()
				var pending *ConsensusNeededError
				var lost *LostAnswerError
				if !errors.As(err, &pending) || errors.As(err, &lost) || pending.ActivityID != "act-9" {
					t.Fatalf("error %v; want an approval timeout naming act-9", err)
				}
				if ended != nil && tc.slow == 0 {
					t.Fatalf("the wait ended after its context (%v), not before", ended)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(logged) != runs {
				t.Fatalf("%d INFO events, want one per wait (%d)", len(logged), runs)
			}
			want := fmt.Sprint(map[string]any{"activity_id": "act-9", "activity_type": OpCreatePolicies.Type, "fingerprint": "fp-9"})
			all, ok := logged[0]["fields"].([]map[string]any)
			if !ok || len(all) != 1 {
				t.Fatalf("INFO event %v: want one map of fields", logged[0])
			}
			fields := all[0]
			got := fmt.Sprint(map[string]any{"activity_id": fields["activity_id"], "activity_type": fields["activity_type"], "fingerprint": fields["fingerprint"]})
			if logged[0]["msg"] != "activity waits for approvals" || got != want {
				t.Fatalf("INFO event %v; want %s", logged[0], want)
			}
		})
	}
}

func TestUnknownStatusIsAnError(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 200, activityJSON("ACTIVITY_STATUS_SOMETHING_NEW", true))
	}}
	c, _ := newTestClient(t, f)
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err == nil || !strings.Contains(err.Error(), "ACTIVITY_STATUS_SOMETHING_NEW") {
		t.Fatalf("error = %v", err)
	}
}

func TestCompletedWithoutResultIsAnError(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 200, strings.Replace(activityJSON(StatusCompleted, true), `"createPoliciesResult"`, `"otherResult"`, 1))
	}}
	c, _ := newTestClient(t, f)
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err == nil || !strings.Contains(err.Error(), "createPoliciesResult") {
		t.Fatalf("error = %v", err)
	}
}

func TestWaitForActivityResumes(t *testing.T) {
	f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
		status := StatusConsensusNeeded
		if n > 1 {
			status = StatusCompleted
		}
		writeJSON(w, 200, activityJSON(status, false))
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.ApprovalWait = time.Hour })
	act, err := c.WaitForActivity(t.Context(), "act-9")
	if err != nil || act.Status != StatusCompleted {
		t.Fatalf("WaitForActivity = %+v, %v", act, err)
	}
}

func TestTimestampShapes(t *testing.T) {
	var a, b ActivityResponse
	if err := json.Unmarshal([]byte(activityJSON(StatusCompleted, true)), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(activityJSON(StatusCompleted, false)), &b); err != nil {
		t.Fatal(err)
	}
	ta, err := a.Activity.CreatedAt.Time()
	if err != nil || !ta.Equal(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)) {
		t.Errorf("string shape: %v, %v", ta, err)
	}
	tb, err := b.Activity.CreatedAt.Time()
	if err != nil || !tb.Equal(time.Unix(1795300000, 5000)) {
		t.Errorf("object shape: %v, %v", tb, err)
	}
	// Each shape encodes back as it came.
	for _, ts := range []Timestamp{a.Activity.CreatedAt, b.Activity.CreatedAt} {
		out, _ := json.Marshal(ts)
		var again Timestamp
		if err := json.Unmarshal(out, &again); err != nil || again != ts {
			t.Errorf("round trip of %+v: %s → %+v (%v)", ts, out, again, err)
		}
	}
	if _, err := (Timestamp{Seconds: "x"}).Time(); err == nil {
		t.Error("bad seconds accepted")
	}
	if _, err := (Timestamp{Seconds: "1", Nanos: "1000000000"}).Time(); err == nil {
		t.Error("nanos out of range accepted")
	}
}

// Two distinct submits with the same parameters in the same millisecond
// must not be byte-identical, or the service answers the second with the
// first's activity and one object stands for two.
func TestEqualSubmitsInOneMillisecondDiffer(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 200, completedPolicies) }}
	c, _ := newTestClient(t, f)
	frozen := time.UnixMilli(1795300000123)
	c.now = func() time.Time { return frozen }
	for i := 0; i < 3; i++ {
		if _, err := c.WithApprovalWait(time.Second).CreatePolicies(t.Context(), onePolicy); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.all()
	seen := map[string]bool{}
	for _, r := range reqs {
		var env Envelope
		_ = json.Unmarshal(r.Body, &env)
		if seen[env.TimestampMs] {
			t.Fatalf("timestampMs %s sent twice for distinct submits", env.TimestampMs)
		}
		seen[env.TimestampMs] = true
	}
}
