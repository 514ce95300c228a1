package submit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Kind is an operation that takes several objects in one activity.
type Kind struct {
	Shape client.ItemShape
	// Submit submits items (the shape's items, as the caller gave them)
	// as one activity with c and waits for it.
	Submit func(ctx context.Context, c *client.Client, items []any) (*client.Activity, error)
}

// key names the batches of k: its operation and its scope, written by fmt,
// which orders a map's keys and writes every value with its type, so that
// two scopes never share a key.
func (k Kind) key() string {
	return fmt.Sprintf("%s/%#v", k.Shape.Op.Name, k.Shape.Scope)
}

// Items adapts a typed submit of a batch operation, whose params build
// makes from the items, to Kind.Submit.
func Items[I, P, R any](submit Func[P, R], build func(items []I) P) func(context.Context, *client.Client, []any) (*client.Activity, error) {
	return func(ctx context.Context, c *client.Client, items []any) (*client.Activity, error) {
		typed := make([]I, len(items))
		for i, it := range items {
			v, ok := it.(I)
			if !ok {
				return nil, fmt.Errorf("batch item %d is a %T, not a %T; this is always a bug in the provider", i, it, v)
			}
			typed[i] = v
		}
		out, err := submit(c, ctx, build(typed))
		if err != nil {
			return nil, err
		}
		return out.Activity, nil
	}
}

// Item runs one item of kind, for up to timeout, and returns the
// activity that did it and the item's position in it:
//   - an activity an earlier run left waiting for approval that holds the
//     item is adopted (AdoptItem), however it was grouped;
//   - else the item goes alone where batching would save no approval
//     (sendsAlone), or joins a batch of the operations of its kind that
//     Terraform runs at the same time, which the batcher sends (and splits,
//     when the service refuses it for one item's sake).
func (r *Runner) Item(ctx context.Context, timeout time.Duration, kind Kind, item any) (*client.Activity, int, error) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got := itemActivity{limit: timeout}
	got.act, got.pos, got.err = r.Client.AdoptItem(ctx, kind.Shape, item)
	if got.act == nil && got.err == nil {
		if sent, alone := r.sendsAlone(ctx, kind); alone {
			got.act, got.err = kind.Submit(ctx, r.Client, []any{item})
			sent()
		} else {
			got = r.Batches.join(ctx, r.Client, kind, item, timeout)
		}
	}
	err := explainActivityError(ctx, r.Client, got.err, got.limit, time.Since(started))
	var ex *client.NotedError
	var waiting *client.ConsensusNeededError
	if got.limit < timeout && ctx.Err() == nil && errors.As(got.err, &waiting) && errors.As(err, &ex) {
		ex.Note += " The batch this resource was sent in waited as long as the strictest timeout among its resources."
	}
	return got.act, got.pos, err
}

// sendsAlone says whether an operation of kind goes alone rather than in a
// batch, and then returns sent, to call once it has been submitted. It
// goes alone where batching is off, and, unless batching.enabled is set
// true, where the AloneJudge (the lockout guard) is sure that it needs no
// approval: a batch exists to save approvals, and costs each of its waves
// the time it waits for its one answer. Anything less than sure is
// batched.
func (r *Runner) sendsAlone(ctx context.Context, kind Kind) (sent func(), alone bool) {
	switch {
	case r.Batches == nil:
		return func() {}, true
	case r.Batches.always || r.Alone == nil:
		return nil, false
	}
	return r.Alone.HoldAlone(ctx, kind.Shape.Op.Type)
}

// splitsBatch tells a batch failure that one item may have caused alone: the
// service refused the request as invalid (a 4xx other than a refusal of
// the credentials, a rate limit or an address that is not the service's),
// or the activity failed for another reason than a policy's denial (an
// expression it cannot parse, a name that is taken, an object that is
// gone). A denial by policy, a rejection, a wait for approval or a lost
// answer is the batch's as a whole, and each member reports it: a batch
// that may have committed is never split and resent, whatever refusal a
// retry of it met (the members get placeholders; client.PlaceholderID).
func splitsBatch(err error) bool {
	var unknown *client.LostAnswerError
	if errors.As(err, &unknown) {
		return false
	}
	var failed *client.ActivityError
	if errors.As(err, &failed) {
		return failed.Status == client.StatusFailed && (failed.Failure == nil || failed.Failure.Code != client.CodePermissionDenied)
	}
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		d := client.Diagnose(err)
		return d.Class == client.ClassInvalid || d.Class == client.ClassNotFound
	}
	return false
}
