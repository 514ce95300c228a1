package submit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Func is a client method that submits one activity, such as
// (*client.Client).CreatePolicies.
type Func[P, R any] func(c *client.Client, ctx context.Context, params P) (*client.Submitted[R], error)

// AloneJudge says whether an operation of activity type typ may go alone,
// sure to need no approval, and then counts it as sent alone until sent
// is called. The lockout guard (internal/lockout) is one.
type AloneJudge interface {
	HoldAlone(ctx context.Context, typ string) (sent func(), alone bool)
}

// Runner submits the activities of one command.
type Runner struct {
	Client *client.Client
	// Batches gathers the creates and deletes that go out as one
	// activity; nil when batching is off.
	Batches *Batcher
	// Alone, when set, lets an operation go alone where a batch would
	// save no approval; nil batches every operation batching is on for.
	Alone AloneJudge
}

// Activity submits one activity through submit and waits for it, for up
// to timeout, also while it needs consensus. The provider's client adopts
// an activity that an earlier, timed-out apply left waiting for approval
// instead of submitting it again (client.Config.AdoptPending).
func Activity[P, R any](ctx context.Context, r *Runner, timeout time.Duration, submit Func[P, R], params P) (*client.Submitted[R], error) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The client's wait for approvals ends a little before ctx does
	// (client.ApprovalMargin), so that a wait that runs out is an
	// *ConsensusNeededError with the activity's fingerprint and advice,
	// not a poll cut short; the resource's timeout stays the upper bound.
	out, err := submit(r.Client, ctx, params)
	if err != nil {
		return nil, explainActivityError(ctx, r.Client, err, timeout, time.Since(started))
	}
	return out, nil
}

// explainActivityError adds what only the provider knows about an activity
// that waits for approval or was rejected: the timeout it waited, that an
// interrupt stopped the wait, who rejected it.
func explainActivityError(ctx context.Context, c *client.Client, err error, timeout, waited time.Duration) error {
	var pending *client.ConsensusNeededError
	if errors.As(err, &pending) && errors.Is(ctx.Err(), context.Canceled) {
		return &client.NotedError{Err: err, Note: "Terraform was interrupted while it waited for approvals."}
	}
	if errors.As(err, &pending) {
		return &client.NotedError{Err: err, Note: fmt.Sprintf("It was still waiting after %s, the timeout of %s less %s kept for "+
			"the last poll and this error; raise timeouts or approval_timeout (CUSTODY_APPROVAL_TIMEOUT) to wait longer.",
			waited.Round(100*time.Millisecond), timeout, client.ApprovalMargin(timeout))}
	}
	var failed *client.ActivityError
	if errors.As(err, &failed) && failed.Status == client.StatusRejected {
		if act, gerr := c.GetActivity(context.WithoutCancel(ctx), client.GetActivityRequest{ActivityID: failed.ActivityID}); gerr == nil {
			var who []string
			for _, v := range act.Votes {
				if v.Selection == client.VoteRejected {
					who = append(who, fmt.Sprintf("%s (user %s)", v.User.UserName, v.UserID))
				}
			}
			if len(who) > 0 {
				return &client.NotedError{Err: err, Note: "Rejected by " + strings.Join(who, ", ") + "."}
			}
		}
	}
	return err
}
