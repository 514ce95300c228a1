package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// A submit can fail after the service acted: the connection drops after
// the commit on every attempt, or the service goes down before it
// answers. The caller then knows neither whether the object exists nor
// its id, and a new submit (a new timestampMs) would make a second one.
// The submit therefore returns a *LostAnswerError that carries what
// identifies the request, and FindSubmission later tells whether the
// service acted on it, and which activity it made.

// Submission identifies one submitted body: its activity type, the SHA-256
// of its exact bytes and its timestampMs, or the activity id when an
// answer gave it. It holds no parameter values, so it can be kept where
// secrets must not be (a body may carry an OIDC token).
type Submission struct {
	Type        string `json:"type"`
	BodySHA256  string `json:"bodySha256"`
	TimestampMs string `json:"timestampMs"`
	ActivityID  string `json:"activityId,omitempty"`
}

func newSubmission(op Operation, body []byte, timestampMs string) Submission {
	sum := sha256.Sum256(body)
	return Submission{Type: op.Type, BodySHA256: hex.EncodeToString(sum[:]), TimestampMs: timestampMs}
}

// LostAnswerError is a submit whose answer was lost: it may or may not
// have acted. The body may have reached the service (see mayHaveReached),
// and no answer said what became of it. Submission finds out later, with FindSubmission.
type LostAnswerError struct {
	Operation  string
	Submission Submission
	Err        error
}

func (e *LostAnswerError) Error() string {
	what := "the service may have acted on it"
	if e.Submission.ActivityID != "" {
		what = "activity " + e.Submission.ActivityID + " was accepted, and its end is unknown"
	}
	return fmt.Sprintf("%s: no answer told what became of the request (%s): %v", e.Operation, what, e.Err)
}

func (e *LostAnswerError) Unwrap() error { return e.Err }

// lostSubmit is the lost answer of a submit of body that failed with err
// after some attempt may have reached the service. No later answer settles it unless
// it names the activity, and a failed one does not: a 4xx to a retry (the
// timestamp gone stale during a long outage, say) speaks of the retry,
// not of the earlier attempt that the service may have committed.
func lostSubmit(op Operation, body []byte, timestampMs string, err error) error {
	return &LostAnswerError{Operation: op.Name, Submission: newSubmission(op, body, timestampMs), Err: err}
}

// submissionSearchReach is how long before a body's timestampMs the
// service may have dated its activity: the clocks of the client and the
// service differ, by less than the service's liveness window (which the
// reference does not state) or it would have refused the body. An hour
// bounds any such window.
const submissionSearchReach = time.Hour

// maxSubmissionPages bounds the search, at 100 activities a page.
const maxSubmissionPages = 50

// FindSubmission returns the activity the service made of s, or nil when
// it made none. An activity is the submission's when its first vote (the
// requester's, whose message is the raw body that was signed) is this
// key's and its message hashes to s.BodySHA256: the body, timestampMs
// included, is unique to one submit, so this never takes an activity that
// another submit with the same parameters made. With s.ActivityID the
// activity is read directly.
//
// Activities are listed newest first, back to an hour before the body's
// timestampMs; a client keeps the pages it listed, so resolving many
// submissions of one type costs one listing.
func (c *Client) FindSubmission(ctx context.Context, s Submission) (*Activity, error) {
	if s.ActivityID != "" {
		act, err := c.GetActivity(ctx, GetActivityRequest{ActivityID: s.ActivityID})
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return act, err
	}
	ms, err := strconv.ParseInt(s.TimestampMs, 10, 64)
	if err != nil || s.Type == "" || len(s.BodySHA256) != sha256.Size*2 {
		return nil, fmt.Errorf("finding a submission: %+v does not identify one", s)
	}
	return c.submitted.find(ctx, c, s, time.UnixMilli(ms).Add(-submissionSearchReach))
}

// submittedLog holds, per activity type, the activities listed so far,
// newest first, for FindSubmission.
type submittedLog struct {
	mu     sync.Mutex
	byType map[string]*listedActivities
}

type listedActivities struct {
	mu   sync.Mutex
	acts []Activity
	// bodies[i] is the SHA-256 (hex) of the body acts[i]'s requester
	// signed, when that requester is this client's key, else "": hashed
	// once per listing, not once per search.
	bodies   []string
	pages    int
	complete bool // the listing reached the oldest activity
}

func (l *submittedLog) of(typ string) *listedActivities {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byType == nil {
		l.byType = map[string]*listedActivities{}
	}
	la, ok := l.byType[typ]
	if !ok {
		la = &listedActivities{}
		l.byType[typ] = la
	}
	return la
}

func (l *submittedLog) find(ctx context.Context, c *Client, s Submission, cutoff time.Time) (*Activity, error) {
	la := l.of(s.Type)
	la.mu.Lock()
	defer la.mu.Unlock()
	for i := 0; ; {
		for ; i < len(la.acts); i++ {
			act := &la.acts[i]
			if la.bodies[i] == s.BodySHA256 && act.Type == s.Type {
				found := *act
				return &found, nil
			}
			if t, err := act.CreatedAt.Time(); err == nil && t.Before(cutoff) {
				return nil, nil
			}
		}
		if la.complete {
			return nil, nil
		}
		if la.pages == maxSubmissionPages {
			return nil, fmt.Errorf("finding the %s activity of the request sent at %s: more than %d activities of that type "+
				"are newer than it, and the search stops there", s.Type, s.TimestampMs, maxSubmissionPages*100)
		}
		page := &Pagination{Limit: "100"}
		if n := len(la.acts); n > 0 {
			page.After = la.acts[n-1].ID
		}
		resp, err := c.ListActivities(ctx, ListActivitiesRequest{FilterByType: []string{s.Type}, PaginationOptions: page})
		if err != nil {
			return nil, &StepError{Step: "looking for the " + s.Type + " activity of a request whose answer was lost", Err: err}
		}
		key := c.PublicKey()
		for j := range resp.Activities {
			la.bodies = append(la.bodies, requesterBody(&resp.Activities[j], key))
		}
		la.acts = append(la.acts, resp.Activities...)
		la.pages++
		la.complete = len(resp.Activities) < 100
	}
}

// requesterBody is the SHA-256 (hex) of the body act's requester (its
// first vote) signed, when the requester is publicKey, else "". A
// submission is the activity whose requester's body hashes to its
// BodySHA256 and whose type is its type.
func requesterBody(act *Activity, publicKey string) string {
	if len(act.Votes) == 0 || act.Votes[0].PublicKey != publicKey {
		return ""
	}
	sum := sha256.Sum256([]byte(act.Votes[0].Message))
	return hex.EncodeToString(sum[:])
}
