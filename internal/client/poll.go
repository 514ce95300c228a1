package client

import (
	"context"
	"fmt"
	"time"
)

// WaitForActivity polls an activity until it settles, as a submit does; use
// it to resume after an *ApprovalRequiredError.
func (c *Client) WaitForActivity(ctx context.Context, activityID string) (*Activity, error) {
	sctx, done := c.SeeThrough(ctx)
	defer done()
	act, err := c.GetActivity(sctx, GetActivityRequest{ActivityID: activityID})
	if err != nil {
		return nil, err
	}
	return c.settle(ctx, sctx, act)
}

// settle polls get_activity with backoff until the activity is COMPLETED
// (returned), FAILED or REJECTED (*ActivityError), waits for approvals
// longer than the client's ApprovalWait or past the end of ctx
// (*ApprovalRequiredError: it waits for people, and a later run can adopt
// it), or sctx ends. The activity is returned with every error so callers
// keep its id.
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
				approvalDeadline = c.now().Add(c.approvalWait)
			}
			if ctx.Err() != nil || !c.now().Before(approvalDeadline) {
				return act, &ApprovalRequiredError{ActivityID: act.ID, Type: act.Type, Status: act.Status, Fingerprint: act.Fingerprint}
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
		if err != nil {
			return act, &StepError{Step: "polling activity " + act.ID, Err: err}
		}
		if next.ID != act.ID {
			return act, fmt.Errorf("polling activity %s: get_activity answered activity %q", act.ID, next.ID)
		}
		act = next
	}
}
