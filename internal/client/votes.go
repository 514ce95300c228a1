package client

import "context"

// VoteParams are the parameters of approve_activity and reject_activity.
type VoteParams struct {
	Fingerprint string `json:"fingerprint"`
}

// ApproveActivity votes to approve the activity with this fingerprint. It
// returns the activity record the service answers with, without waiting:
// more votes may still be needed.
func (c *Client) ApproveActivity(ctx context.Context, p VoteParams) (*Activity, error) {
	return c.submitActivity(ctx, OpApproveActivity, p)
}

// RejectActivity votes to reject the activity with this fingerprint.
func (c *Client) RejectActivity(ctx context.Context, p VoteParams) (*Activity, error) {
	return c.submitActivity(ctx, OpRejectActivity, p)
}
