package client

import (
	"context"
	"encoding/json"
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
// what it cannot rebuild. Each activity is handed on with what a replay
// reads (recentActivity), not what else the list carries.
func (c *Client) RecentActivities(ctx context.Context, since time.Time, most int, each func([]Activity) error) (RecentEnd, error) {
	var end RecentEnd
	after := ""
	for {
		page := &Pagination{Limit: fmt.Sprint(activitiesPage), After: after}
		req := ListActivitiesRequest{PaginationOptions: page}
		resp, err := query[recentPage](ctx, c, QueryListActivities, &req, &req.OrganizationID)
		if err != nil {
			return end, &StepError{Step: fmt.Sprintf("reading the activities since %s (page %d)", since.UTC().Format(time.RFC3339), end.Pages+1), Err: err}
		}
		end.Pages++
		acts := resp.activities()
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

// recentPage is list_activities' answer as RecentActivities reads it:
// each activity less what a replay of it never reads (each vote's signed
// message and signature, the result, the proofs, the fingerprint), which
// the decoder skips rather than keeps. Those are most of a page's bytes:
// a vote's message is the whole request it signed.
type recentPage struct {
	Activities []recentActivity `json:"activities"`
}

type recentActivity struct {
	ID        string                     `json:"id"`
	Status    string                     `json:"status"`
	Type      string                     `json:"type"`
	Intent    map[string]json.RawMessage `json:"intent"`
	Votes     []recentVote               `json:"votes"`
	CreatedAt Timestamp                  `json:"createdAt"`
}

type recentVote struct {
	UserID    string     `json:"userId"`
	User      recentUser `json:"user"`
	Selection string     `json:"selection"`
	PublicKey string     `json:"publicKey"`
	CreatedAt Timestamp  `json:"createdAt"`
}

// recentUser is a voter as the vote recorded it: tags and email, and the
// credentials a vote's public key is found among.
type recentUser struct {
	UserID         string          `json:"userId"`
	UserEmail      string          `json:"userEmail,omitempty"`
	UserTags       []string        `json:"userTags"`
	APIKeys        []UserAPIKey    `json:"apiKeys"`
	Authenticators []Authenticator `json:"authenticators"`
}

// activities are the page's activities as Activity values, with the
// fields recentActivity reads.
func (p *recentPage) activities() []Activity {
	out := make([]Activity, len(p.Activities))
	for i, a := range p.Activities {
		votes := make([]Vote, len(a.Votes))
		for j, v := range a.Votes {
			votes[j] = Vote{UserID: v.UserID, Selection: v.Selection, PublicKey: v.PublicKey, CreatedAt: v.CreatedAt, ActivityID: a.ID,
				User: User{UserID: v.User.UserID, UserEmail: v.User.UserEmail, UserTags: v.User.UserTags, APIKeys: v.User.APIKeys,
					Authenticators: v.User.Authenticators}}
		}
		out[i] = Activity{ID: a.ID, Status: a.Status, Type: a.Type, Intent: a.Intent, Votes: votes, CreatedAt: a.CreatedAt}
	}
	return out
}
