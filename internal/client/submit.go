package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Submitted is what a submit method returns: the typed result and the
// activity that produced it (its id, votes and fingerprint).
type Submitted[R any] struct {
	Activity *Activity
	Result   R
}

// EmptyResult is the result of activities whose result object is empty.
type EmptyResult struct{}

// submit sends one activity, waits for it to settle and decodes its result.
// Nothing is sent once ctx is done; from the moment the bytes may reach the
// service, the request, its retries and the polls run on SeeThrough(ctx).
// A client made with AdoptPending first adopts a matching activity left
// waiting by an earlier run (see pendingActivities); the operations that
// take several objects are adopted item by item instead (AdoptItem), by
// their caller.
func submit[R any](ctx context.Context, c *Client, op Operation, params any) (*Submitted[R], error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: not sent: %w", op.Name, err)
	}
	if c.pending != nil && !itemAdopted[op.Name] {
		prior, err := c.pending.find(ctx, c, op, params)
		if err != nil {
			return nil, err
		}
		if prior != nil {
			act, err := c.awaitAdopted(ctx, op, prior)
			if err != nil {
				return nil, err
			}
			return decodeResult[R](op, act)
		}
	}
	sctx, done := c.SeeThrough(ctx)
	defer done()
	act, err := c.submitActivity(ctx, sctx, op, params)
	if err != nil {
		return nil, err
	}
	if act, err = c.settle(ctx, sctx, act); err != nil {
		return nil, lostWait(op, act, err)
	}
	return decodeResult[R](op, act)
}

// lostWait turns a wait for act that failed without learning how it
// ended (the polls failed, or were cut short while it ran) into a lost
// answer, a *LostAnswerError that names the activity; the other failures
// (failed, rejected, waiting for consensus) are its end, or the caller's
// to resume.
func lostWait(op Operation, act *Activity, err error) error {
	var failed *ActivityError
	var consensus *ConsensusNeededError
	if act == nil || act.ID == "" || errors.As(err, &failed) || errors.As(err, &consensus) {
		return err
	}
	return &LostAnswerError{Operation: op.Name, Submission: Submission{Type: op.Type, ActivityID: act.ID}, Err: err}
}

// decodeResult reads the result of a completed activity of op.
func decodeResult[R any](op Operation, act *Activity) (*Submitted[R], error) {
	out := &Submitted[R]{Activity: act}
	if _, ok := act.Result[op.ResultKey]; !ok && op.EmptyResult {
		return out, nil
	}
	if err := DecodeResult(op, act, &out.Result); err != nil {
		return nil, err
	}
	return out, nil
}

// SeeThrough returns a context for work that must not stop halfway once an
// activity may have reached the service: the submit itself, its retries and
// its polls, and the caller's recording of the result. A caller interrupted
// in between could not tell what was done, and its next run would do it
// again. A cancellation of ctx (Terraform's interrupt) therefore ends the
// returned context only InterruptGrace later; ctx's deadline still ends it
// on time. Call the CancelFunc when done.
func (c *Client) SeeThrough(ctx context.Context) (context.Context, context.CancelFunc) {
	detached := context.WithoutCancel(ctx)
	var sctx context.Context
	var cancel context.CancelFunc
	if deadline, ok := ctx.Deadline(); ok {
		sctx, cancel = context.WithDeadline(detached, deadline)
	} else {
		sctx, cancel = context.WithCancel(detached)
	}
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(c.interruptGrace, cancel) })
	return sctx, func() { stop(); cancel() }
}

// submitActivity takes a token from the request budget, then builds the
// envelope once and posts it; retries inside post resend these exact
// bytes, timestampMs included. The token comes first, so that a submit
// that waited for it is stamped when it leaves, not when it joined the
// queue: the service refuses a timestampMs outside its liveness window.
// The wait for the token ends with ctx (nothing is sent yet); the post
// runs on sctx (see SeeThrough).
func (c *Client) submitActivity(ctx, sctx context.Context, op Operation, params any) (*Activity, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding parameters: %w", op.Name, err)
	}
	if err := c.takeToken(ctx, op.Name); err != nil {
		return nil, notSent(op.Name, err)
	}
	ts := strconv.FormatInt(c.stamps.next(c.now()), 10)
	body, err := json.Marshal(Envelope{
		Type:           op.Type,
		TimestampMs:    ts,
		OrganizationID: c.orgID,
		Parameters:     p,
	})
	if err != nil {
		return nil, err
	}
	var resp ActivityResponse
	reached, err := c.postReporting(sctx, op.Name, "/public/v1/submit/"+op.Name, body, &resp, firstTokenTaken)
	if err != nil && reached {
		return nil, lostSubmit(op, body, ts, err)
	}
	if err != nil {
		return nil, err
	}
	if resp.Activity.ID == "" {
		return nil, fmt.Errorf("%s: the answer holds no activity id", op.Name)
	}
	return &resp.Activity, nil
}

// DecodeResult reads the result of act, a completed activity of op, into
// out: for an activity found again (FindSubmission) rather than awaited.
func DecodeResult(op Operation, act *Activity, out any) error {
	if act.Status != StatusCompleted {
		return fmt.Errorf("%s: activity %s is %s, not completed", op.Name, act.ID, act.Status)
	}
	raw, ok := act.Result[op.ResultKey]
	if !ok {
		return fmt.Errorf("%s: activity %s %w %q", op.Name, act.ID, errNoResult, op.ResultKey)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: activity %s: decoding %s: %w", op.Name, act.ID, op.ResultKey, err)
	}
	return nil
}
