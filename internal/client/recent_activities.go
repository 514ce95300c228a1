package client

import (
	"context"
	"fmt"
	"time"
)

// activitiesPage is list_activities' largest page (reference: 100).
const activitiesPage = 100

// RecentEnd is why RecentActivities stopped, and what it read.
type RecentEnd struct {
	// Pages and Activities are the pages read and the activities handed
	// on (those created since the cutoff, at most `most`).
	Pages, Activities int
	// Reason is EndCutoff, EndMax or EndList.
	Reason string
}

// The reasons RecentActivities stops.
const (
	EndCutoff = "an activity older than the cutoff" // the list went past it
	EndMax    = "the most activities asked for"     // most were handed on
	EndList   = "the end of the list"               // the organization has no more
)

// RecentActivities pages list_activities newest first, 100 a page, one
// page at a time, and hands each page's activities created at or after
// since to each, until the list goes past since, most activities were
// handed on, or the list ends. The list has no date filter, so a 30-day
// replay of 10,000 activities is 100 sequential pages; each is decoded
// and handed on before the next is asked for, so that memory holds one
// page. Every page is a query under the client's request budget. An
// activity whose createdAt does not parse is handed on: the caller says
// what it cannot rebuild.
func (c *Client) RecentActivities(ctx context.Context, since time.Time, most int, each func([]Activity) error) (RecentEnd, error) {
	var end RecentEnd
	after := ""
	for {
		page := &Pagination{Limit: fmt.Sprint(activitiesPage), After: after}
		resp, err := c.ListActivities(ctx, ListActivitiesRequest{PaginationOptions: page})
		if err != nil {
			return end, &StepError{Step: fmt.Sprintf("reading the activities since %s (page %d)", since.UTC().Format(time.RFC3339), end.Pages+1), Err: err}
		}
		end.Pages++
		acts := resp.Activities
		keep := len(acts)
		for i := range acts {
			if t, err := acts[i].CreatedAt.Time(); err == nil && t.Before(since) {
				keep, end.Reason = i, EndCutoff
				break
			}
		}
		if left := most - end.Activities; keep > left {
			keep, end.Reason = left, EndMax
		}
		if keep > 0 {
			if err := each(acts[:keep]); err != nil {
				return end, err
			}
			end.Activities += keep
		}
		switch {
		case end.Reason != "":
			return end, nil
		case len(acts) < activitiesPage:
			end.Reason = EndList
			return end, nil
		}
		after = acts[len(acts)-1].ID
	}
}
