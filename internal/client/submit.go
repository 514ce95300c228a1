package client

import (
	"context"
	"encoding/json"
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
// waiting by an earlier run (see pendingActivities).
func submit[R any](ctx context.Context, c *Client, op Operation, params any) (*Submitted[R], error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: not sent: %w", op.Name, err)
	}
	if c.pending != nil {
		prior, err := c.pending.find(ctx, c, op, params)
		if err != nil {
			return nil, err
		}
		if prior != nil {
			act, err := c.WaitForActivity(ctx, prior.ID)
			if err != nil {
				return nil, err
			}
			return decodeResult[R](op, act)
		}
	}
	sctx, done := c.SeeThrough(ctx)
	defer done()
	act, err := c.submitActivity(sctx, op, params)
	if err != nil {
		return nil, err
	}
	if act, err = c.settle(ctx, sctx, act); err != nil {
		return nil, err
	}
	return decodeResult[R](op, act)
}

// decodeResult reads the result of a completed activity of op.
func decodeResult[R any](op Operation, act *Activity) (*Submitted[R], error) {
	out := &Submitted[R]{Activity: act}
	raw, ok := act.Result[op.ResultKey]
	if !ok {
		if op.EmptyResult {
			return out, nil
		}
		return nil, fmt.Errorf("%s: activity %s %w %q", op.Name, act.ID, errNoResult, op.ResultKey)
	}
	if err := json.Unmarshal(raw, &out.Result); err != nil {
		return nil, fmt.Errorf("%s: activity %s: decoding %s: %w", op.Name, act.ID, op.ResultKey, err)
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

// submitActivity builds the envelope once and posts it; retries inside post
// resend these exact bytes, timestampMs included.
func (c *Client) submitActivity(ctx context.Context, op Operation, params any) (*Activity, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding parameters: %w", op.Name, err)
	}
	body, err := json.Marshal(Envelope{
		Type:           op.Type,
		TimestampMs:    strconv.FormatInt(c.stamps.next(c.now()), 10),
		OrganizationID: c.orgID,
		Parameters:     p,
	})
	if err != nil {
		return nil, err
	}
	var resp ActivityResponse
	if err := c.post(ctx, op.Name, "/public/v1/submit/"+op.Name, body, &resp); err != nil {
		return nil, err
	}
	if resp.Activity.ID == "" {
		return nil, fmt.Errorf("%s: the answer holds no activity id", op.Name)
	}
	return &resp.Activity, nil
}
