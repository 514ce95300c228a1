package client

import (
	"context"
	"fmt"
	"math"
	"time"
)

// WaitForActivity polls an activity until it settles, as a submit does; use
// it to resume after a *ConsensusNeededError.
func (c *Client) WaitForActivity(ctx context.Context, activityID string) (*Activity, error) {
	sctx, done := c.SeeThrough(ctx)
	defer done()
	act, err := c.GetActivity(sctx, GetActivityRequest{ActivityID: activityID})
	if err != nil {
		return nil, err
	}
	return c.settle(ctx, sctx, act)
}

// ApprovalMargin is the time a wait for approvals leaves before the end of
// a context that has d left: a second, or a tenth of d when d is shorter
// than 10 s. It is kept for the last poll and the error, so that a wait
// that runs out ends as a *ConsensusNeededError naming the activity,
// never as a poll cut short by the context (a lost answer).
func ApprovalMargin(d time.Duration) time.Duration {
	return min(d/10, time.Second)
}

// ApprovalWaitUntilDeadline is an ApprovalWait with no bound of its own:
// the wait ends at its context's deadline, less ApprovalMargin.
const ApprovalWaitUntilDeadline time.Duration = math.MaxInt64

// approvalDeadline is when a wait for approvals that starts now ends: after
// the client's ApprovalWait, and never later than ctx's deadline less
// ApprovalMargin. It is the one place that bounds such a wait.
func (c *Client) approvalDeadline(ctx context.Context) time.Time {
	now := c.now()
	end := now.Add(c.approvalWait)
	if dl, ok := ctx.Deadline(); ok {
		if capped := dl.Add(-ApprovalMargin(dl.Sub(now))); capped.Before(end) {
			end = capped
		}
	}
	return end
}

// settle polls get_activity with backoff until the activity is COMPLETED
// (returned), FAILED or REJECTED (*ActivityError), waits for approvals
// past approvalDeadline (*ConsensusNeededError: it waits for people, and a
// later run can adopt it), or sctx ends. The activity is returned with
// every error so callers keep its id.
func (c *Client) settle(ctx, sctx context.Context, act *Activity) (*Activity, error) {
	wait := c.pollMin
	var approvalDeadline time.Time
	for {
		// While the activity waits for people, an interrupt (ctx) ends the
		// wait at once; otherwise it is about to finish, and only sctx ends
		// the polling.
		napCtx := sctx
		switch act.Status {
		case StatusCompleted:
			return act, nil
		case StatusFailed, StatusRejected:
			return act, &ActivityError{ActivityID: act.ID, Type: act.Type, Status: act.Status, Fingerprint: act.Fingerprint, Failure: act.Failure}
		case StatusConsensusNeeded, StatusAuthenticatorsNeeded:
			if approvalDeadline.IsZero() {
				approvalDeadline = c.approvalDeadline(ctx)
				c.logApprovalWait(ctx, act, approvalDeadline)
			}
			if ctx.Err() != nil || !c.now().Before(approvalDeadline) {
				return act, consensusNeeded(act)
			}
			napCtx = ctx
		case StatusCreated, StatusPending:
		default:
			return act, fmt.Errorf("activity %s has an unknown status %q", act.ID, act.Status)
		}
		nap := wait
		if !approvalDeadline.IsZero() {
			if left := approvalDeadline.Sub(c.now()); left < nap {
				nap = left
			}
		}
		c.debug(sctx, "waiting for activity", map[string]any{"activity_id": act.ID, "status": act.Status, "wait": nap.String()})
		if err := c.sleep(napCtx, nap); err != nil {
			if napCtx == ctx && sctx.Err() == nil {
				continue // interrupted while waiting for people: the consensus case answers
			}
			return act, &StepError{Step: fmt.Sprintf("waiting for activity %s (last status %s)", act.ID, act.Status), Err: err}
		}
		wait = min(wait*2, c.pollMax)
		next, err := c.GetActivity(sctx, GetActivityRequest{ActivityID: act.ID})
		if err != nil && waitsForPeople(act.Status) && (sctx.Err() != nil || ctx.Err() != nil) {
			// The last poll of a wait for approvals outlasted the margin
			// (a slow answer): the activity still waited as of its last
			// answer, and a later run adopts it, so this is the wait's end.
			return act, consensusNeeded(act)
		}
		if err != nil {
			return act, &StepError{Step: "polling activity " + act.ID, Err: err}
		}
		if next.ID != act.ID {
			return act, fmt.Errorf("polling activity %s: get_activity answered activity %q", act.ID, next.ID)
		}
		act = next
	}
}

// waitsForPeople tells the statuses in which an activity waits for
// approvals.
func waitsForPeople(status string) bool {
	return status == StatusConsensusNeeded || status == StatusAuthenticatorsNeeded
}

func consensusNeeded(act *Activity) *ConsensusNeededError {
	return &ConsensusNeededError{ActivityID: act.ID, Type: act.Type, Status: act.Status, Fingerprint: act.Fingerprint}
}

// logApprovalWait says, at INFO, that act starts waiting for approvals:
// its id, type and fingerprint (what an approver names it by, in the
// dashboard or with `custody-emulator approve -fingerprint`) and how long
// the wait may last, so that a person watching a long apply
// (TF_LOG_PROVIDER=INFO) knows what to approve.
func (c *Client) logApprovalWait(ctx context.Context, act *Activity, until time.Time) {
	if c.info == nil {
		return
	}
	c.info(ctx, "activity waits for approvals", map[string]any{"activity_id": act.ID, "activity_type": act.Type,
		"fingerprint": act.Fingerprint, "status": act.Status, "waiting_until": until.UTC().Format(time.RFC3339)})
}
