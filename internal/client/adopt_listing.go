package client

import (
	"context"
	"time"
)

// PrefetchPending starts, in the background, the adoption listing of ops
// (see pendingActivities): the activities of their types that this key
// left waiting, as a submit of each would list them first. It is sent
// beside the command's other first reads, so that the first submit of an
// apply waits for no listing of its own: two list_activities in all,
// however many types (the creates, whose approved activities count too,
// and the rest), against one per type in turn. ctx carries the logger; its
// cancellation does not stop the listing, which submits may wait for.
// Types already listed, or being listed, are left as they are.
func (c *Client) PrefetchPending(ctx context.Context, ops ...Operation) {
	if c.pending == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	creates, others := map[string]*candidates{}, map[string]*candidates{}
	c.pending.mu.Lock()
	for _, op := range ops {
		if _, listed := c.pending.byType[op.Type]; listed {
			continue
		}
		cands := &candidates{done: make(chan struct{})}
		c.pending.byType[op.Type] = cands
		if _, completedToo := createdReaders[op.Name]; completedToo {
			creates[op.Type] = cands
		} else {
			others[op.Type] = cands
		}
	}
	c.pending.mu.Unlock()
	if len(creates) > 0 {
		go c.pending.fill(ctx, c, creates, true)
	}
	if len(others) > 0 {
		go c.pending.fill(ctx, c, others, false)
	}
}

// fill lists the candidates of the types of byType in one listing and
// hands each type its own, closing their done. A failed listing is
// dropped from byType for every type, so that the next caller of each
// lists again rather than inherit the error.
func (p *pendingActivities) fill(ctx context.Context, c *Client, byType map[string]*candidates, completedToo bool) {
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	list, err := listCandidates(ctx, c, types, completedToo)
	p.mu.Lock()
	for t, cands := range byType {
		cands.err = err
		if err != nil {
			delete(p.byType, t)
		}
	}
	for _, act := range list {
		if cands := byType[act.Type]; cands != nil {
			cands.list = append(cands.list, act)
		}
	}
	p.mu.Unlock()
	for _, cands := range byType {
		close(cands.done)
	}
}

// listCandidates lists the activities of the given types that this key
// submitted and that wait for consensus, or (with completedToo) completed
// after consensus, within the approval window: newest first, at most
// maxCandidatePages pages per type.
func listCandidates(ctx context.Context, c *Client, types []string, completedToo bool) ([]Activity, error) {
	var out []Activity
	cutoff := time.Now().Add(-approvalWindow)
	statuses := []string{StatusConsensusNeeded}
	if completedToo {
		statuses = append(statuses, StatusCompleted)
	}
	page := &Pagination{Limit: "100"}
	for i := 0; i < maxCandidatePages*len(types); i++ {
		resp, err := c.ListActivities(ctx, ListActivitiesRequest{
			FilterByStatus:    statuses,
			FilterByType:      types,
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
			if act.Status == StatusConsensusNeeded || (completedToo && act.Status == StatusCompleted && approvals(act) >= 2) {
				out = append(out, act)
			}
		}
		if len(resp.Activities) < 100 {
			return out, nil
		}
		page = &Pagination{Limit: "100", After: resp.Activities[len(resp.Activities)-1].ID}
	}
	return out, nil
}
