package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Activity statuses.
const (
	StatusCreated              = "ACTIVITY_STATUS_CREATED"
	StatusPending              = "ACTIVITY_STATUS_PENDING"
	StatusCompleted            = "ACTIVITY_STATUS_COMPLETED"
	StatusFailed               = "ACTIVITY_STATUS_FAILED"
	StatusConsensusNeeded      = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
	StatusRejected             = "ACTIVITY_STATUS_REJECTED"
	StatusAuthenticatorsNeeded = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
)

// Envelope is the body of every submit.
type Envelope struct {
	Type              string          `json:"type"`
	TimestampMs       string          `json:"timestampMs"`
	OrganizationID    string          `json:"organizationId"`
	Parameters        json.RawMessage `json:"parameters"`
	GenerateAppProofs *bool           `json:"generateAppProofs,omitempty"`
}

// ActivityResponse is the answer of every submit and of get_activity.
type ActivityResponse struct {
	Activity Activity `json:"activity"`
}

// Activity is the record of one submitted mutation. Intent and Result are
// keyed by the intent and result names of its type (for example
// "createPoliciesIntent"); their shapes vary with the type.
type Activity struct {
	ID             string                     `json:"id"`
	OrganizationID string                     `json:"organizationId"`
	Status         string                     `json:"status"`
	Type           string                     `json:"type"`
	Intent         map[string]json.RawMessage `json:"intent"`
	Result         map[string]json.RawMessage `json:"result"`
	Votes          []Vote                     `json:"votes"`
	AppProofs      []AppProof                 `json:"appProofs,omitempty"`
	Fingerprint    string                     `json:"fingerprint"`
	CanApprove     bool                       `json:"canApprove"`
	CanReject      bool                       `json:"canReject"`
	CreatedAt      Timestamp                  `json:"createdAt"`
	UpdatedAt      Timestamp                  `json:"updatedAt"`
	Failure        *Status                    `json:"failure,omitempty"`
	// TimestampMs appears on submit answers only.
	TimestampMs string `json:"timestampMs,omitempty"`
}

// Vote selections.
const (
	VoteApproved = "VOTE_SELECTION_APPROVED"
	VoteRejected = "VOTE_SELECTION_REJECTED"
)

// Vote is one approval or rejection of an activity.
type Vote struct {
	ID         string    `json:"id"`
	UserID     string    `json:"userId"`
	User       User      `json:"user"`
	ActivityID string    `json:"activityId"`
	Selection  string    `json:"selection"` // VoteApproved or VoteRejected
	Message    string    `json:"message"`
	PublicKey  string    `json:"publicKey"`
	Signature  string    `json:"signature"`
	Scheme     string    `json:"scheme"`
	CreatedAt  Timestamp `json:"createdAt"`
}

// AppProof is a verifiability proof attached to an activity.
type AppProof struct {
	Scheme       string `json:"scheme"`
	PublicKey    string `json:"publicKey"`
	ProofPayload string `json:"proofPayload"`
	Signature    string `json:"signature"`
}

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
			return act, fmt.Errorf("waiting for activity %s (last status %s): %w", act.ID, act.Status, err)
		}
		wait = min(wait*2, c.pollMax)
		next, err := c.GetActivity(sctx, GetActivityRequest{ActivityID: act.ID})
		if err != nil {
			return act, fmt.Errorf("polling activity %s: %w", act.ID, err)
		}
		if next.ID != act.ID {
			return act, fmt.Errorf("polling activity %s: get_activity answered activity %q", act.ID, next.ID)
		}
		act = next
	}
}
