package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// activityKind names an activity type and where its intent and result sit
// in the activity record.
type activityKind struct {
	typ, intentKey, resultKey string
}

// approvalWindow is how long the service keeps approvals open; an activity
// older than that can no longer be adopted.
const approvalWindow = 24 * time.Hour

// runActivity submits one activity through do and waits for it, for up to
// timeout, also while it needs consensus. Before submitting, it looks for an
// activity of the same kind and intent that this key already submitted and
// that is still waiting for approval, or was approved after waiting: an
// earlier apply that timed out left it behind, and submitting again would
// act twice once both are approved. Such an activity is adopted instead.
func runActivity[R any](ctx context.Context, pd *providerData, timeout time.Duration, kind activityKind, params any,
	do func(ctx context.Context, c *client.Client) (*client.Submitted[R], error)) (*client.Submitted[R], error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The approval wait ends a little before the context does, so that a
	// wait that runs out is an *ApprovalRequiredError with the activity's
	// fingerprint and advice, not a bare "context deadline exceeded"; the
	// resource's timeout stays the upper bound.
	c := pd.client.WithApprovalWait(timeout - approvalMargin(timeout))
	prior, err := pd.pending.find(ctx, pd.client, kind, params)
	if err != nil {
		return nil, err
	}
	if prior != nil {
		act, err := c.WaitForActivity(ctx, prior.ID)
		if err != nil {
			return nil, explainActivityError(ctx, pd.client, err, timeout)
		}
		out := &client.Submitted[R]{Activity: act}
		if raw, ok := act.Result[kind.resultKey]; ok {
			if err := json.Unmarshal(raw, &out.Result); err != nil {
				return nil, fmt.Errorf("adopting activity %s: decoding %s: %w", act.ID, kind.resultKey, err)
			}
		}
		return out, nil
	}
	out, err := do(ctx, c)
	if err != nil {
		return nil, explainActivityError(ctx, pd.client, err, timeout)
	}
	return out, nil
}

// activityTime is when an activity last changed, which for a completed one
// is when it completed. Resources take their created_at and updated_at from
// it rather than read the object back after a change.
func activityTime(act *client.Activity) types.String { return timestampValue(act.UpdatedAt) }

// approvalMargin is the time kept back from a timeout for the last poll and
// the error: a fifth of it, at most 10 s.
func approvalMargin(timeout time.Duration) time.Duration {
	return min(timeout/5, 10*time.Second)
}

// explainActivityError adds what a user needs to act on an activity that
// waits for approval or was rejected.
func explainActivityError(ctx context.Context, c *client.Client, err error, timeout time.Duration) error {
	var pending *client.ApprovalRequiredError
	if errors.As(err, &pending) && errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%w. Terraform was interrupted while it waited for approvals; a later apply waits for this same activity "+
			"and adopts its result instead of submitting a new one", err)
	}
	if errors.As(err, &pending) {
		return fmt.Errorf("%w. It was still waiting after the timeout of %s. Approve or reject it with approve_activity / reject_activity "+
			"and the fingerprint above (or in the service's console); a later apply waits for this same activity and adopts its "+
			"result instead of submitting a new one. Raise timeouts or approval_timeout to wait longer", err, timeout)
	}
	var failed *client.ActivityError
	if errors.As(err, &failed) && failed.Status == client.StatusRejected {
		if act, gerr := c.GetActivity(context.WithoutCancel(ctx), client.GetActivityRequest{ActivityID: failed.ActivityID}); gerr == nil {
			var who []string
			for _, v := range act.Votes {
				if v.Selection == "VOTE_SELECTION_REJECTED" {
					who = append(who, fmt.Sprintf("%s (user %s)", v.User.UserName, v.UserID))
				}
			}
			if len(who) > 0 {
				return fmt.Errorf("%w: rejected by %s", err, strings.Join(who, ", "))
			}
		}
	}
	return err
}

// pendingActivities finds activities this key left waiting, listing each
// activity type at most once per command.
type pendingActivities struct {
	mu      sync.Mutex
	byType  map[string]*candidates
	claimed map[string]bool
}

type candidates struct {
	once sync.Once
	list []client.Activity
	err  error
}

func newPendingActivities() *pendingActivities {
	return &pendingActivities{byType: map[string]*candidates{}, claimed: map[string]bool{}}
}

// maxCandidatePages bounds the listing; at 100 per page that is the newest
// thousand activities of one type.
const maxCandidatePages = 10

// find returns an unclaimed activity of kind whose intent equals params.
func (p *pendingActivities) find(ctx context.Context, c *client.Client, kind activityKind, params any) (*client.Activity, error) {
	p.mu.Lock()
	cands, ok := p.byType[kind.typ]
	if !ok {
		cands = &candidates{}
		p.byType[kind.typ] = cands
	}
	p.mu.Unlock()
	cands.once.Do(func() { cands.list, cands.err = listCandidates(ctx, c, kind.typ) })
	if cands.err != nil {
		return nil, fmt.Errorf("looking for an earlier %s activity still waiting for approval: %w", kind.typ, cands.err)
	}
	if len(cands.list) == 0 {
		return nil, nil
	}
	want, err := normalizedJSON(params)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range cands.list {
		act := &cands.list[i]
		if p.claimed[act.ID] {
			continue
		}
		got, err := normalizedJSON(act.Intent[kind.intentKey])
		if err == nil && reflect.DeepEqual(got, want) {
			p.claimed[act.ID] = true
			return act, nil
		}
	}
	return nil, nil
}

// listCandidates lists the activities of one type that this key submitted
// and that wait for consensus, or completed after consensus, within the
// approval window.
func listCandidates(ctx context.Context, c *client.Client, typ string) ([]client.Activity, error) {
	var out []client.Activity
	cutoff := time.Now().Add(-approvalWindow)
	page := &client.Pagination{Limit: "100"}
	for i := 0; i < maxCandidatePages; i++ {
		resp, err := c.ListActivities(ctx, client.ListActivitiesRequest{
			FilterByStatus:    []string{client.StatusConsensusNeeded, client.StatusCompleted},
			FilterByType:      []string{typ},
			PaginationOptions: page,
		})
		if err != nil {
			return nil, err
		}
		for _, act := range resp.Activities {
			if t, err := act.CreatedAt.Time(); err == nil && t.Before(cutoff) {
				return out, nil
			}
			if len(act.Votes) == 0 || act.Votes[0].PublicKey != c.PublicKey() {
				continue
			}
			if act.Status == client.StatusConsensusNeeded || approvals(act) >= 2 {
				out = append(out, act)
			}
		}
		if len(resp.Activities) < 100 {
			return out, nil
		}
		page = &client.Pagination{Limit: "100", After: resp.Activities[len(resp.Activities)-1].ID}
	}
	return out, nil
}

func approvals(act client.Activity) int {
	n := 0
	for _, v := range act.Votes {
		if v.Selection == "VOTE_SELECTION_APPROVED" {
			n++
		}
	}
	return n
}

// normalizedJSON decodes v (a value or raw JSON) into plain Go values with
// nulls, empty lists and empty objects dropped, so that an intent echoed by
// the service compares equal to the parameters that produced it.
func normalizedJSON(v any) (any, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return dropEmpty(out), nil
}

func dropEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			e = dropEmpty(e)
			if isEmpty(e) {
				delete(t, k)
			} else {
				t[k] = e
			}
		}
	case []any:
		for i, e := range t {
			t[i] = dropEmpty(e)
		}
	}
	return v
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}
