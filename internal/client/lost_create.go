package client

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// A create whose answer was lost (LostAnswerError) may have made its
// object or not. The provider saves such a resource with a placeholder id
// that carries what identifies the request (its Submission, and the
// object's position in it) and no secret, and resolves it later
// (ResolvePlaceholder) to the object the service made, or to nothing.
// Writing the placeholder into Terraform's state, and what a resource
// does with the resolution, is the provider's (internal/provider,
// lost_create.go).

// LostCreateIDPrefix starts a placeholder's id, which no object has.
const LostCreateIDPrefix = "unresolved-create-"

// PlaceholderID is the id of the placeholder of the object at position
// pos of sub (a batch makes several).
func PlaceholderID(sub Submission, pos int) string {
	if sub.ActivityID != "" {
		return fmt.Sprintf("%s%d-activity-%s", LostCreateIDPrefix, pos, sub.ActivityID)
	}
	return fmt.Sprintf("%s%d-%s-%s", LostCreateIDPrefix, pos, sub.TimestampMs, sub.BodySHA256)
}

// SubmissionOf reads the request a placeholder id stands for, of
// activity type typ, and the object's position in it; ok is false for the
// id of an object.
func SubmissionOf(typ, id string) (sub Submission, pos int, ok bool) {
	rest, ok := strings.CutPrefix(id, LostCreateIDPrefix)
	if !ok {
		return Submission{}, 0, false
	}
	at, rest, _ := strings.Cut(rest, "-")
	pos, err := strconv.Atoi(at)
	if err != nil || pos < 0 {
		return Submission{}, 0, false
	}
	if activityID, ok := strings.CutPrefix(rest, "activity-"); ok {
		return Submission{Type: typ, ActivityID: activityID}, pos, true
	}
	ts, hash, _ := strings.Cut(rest, "-")
	return Submission{Type: typ, TimestampMs: ts, BodySHA256: hash}, pos, true
}

// LostCreateResult is what became of a lost create.
type LostCreateResult int

const (
	LostCreateMadeNothing LostCreateResult = iota // not done, failed or rejected: create again
	LostCreateMade                                // done: the object's id is known
	LostCreateWaiting                             // still waiting for approval or running
)

// LostCreate is a placeholder resolved: what became of its create, the
// object's id when one was made, and the activity when one was found.
type LostCreate struct {
	Result     LostCreateResult
	ObjectID   string
	Activity   *Activity
	Submission Submission
}

// CreatedIDFunc reads the id of the object at a position of what a
// completed create activity made (CreatedID).
type CreatedIDFunc func(act *Activity, pos int) (string, error)

// ResolvePlaceholder resolves id when it is a placeholder of a create
// through op; isPlaceholder is false for the id of an object. A failed
// search is err, with what was found so far in got.
func (c *Client) ResolvePlaceholder(ctx context.Context, op Operation, id string, createdID CreatedIDFunc,
) (got LostCreate, isPlaceholder bool, err error) {
	sub, pos, isPlaceholder := SubmissionOf(op.Type, id)
	if !isPlaceholder {
		return LostCreate{}, false, nil
	}
	got = LostCreate{Result: LostCreateMadeNothing, Submission: sub} // no activity: the service never had the request
	got.Activity, err = c.FindSubmission(ctx, sub)
	if err == nil && got.Activity != nil {
		switch got.Activity.Status {
		case StatusCompleted:
			got.Result = LostCreateMade
			got.ObjectID, err = createdID(got.Activity, pos)
		case StatusFailed, StatusRejected:
			got.Result = LostCreateMadeNothing
		default:
			got.Result = LostCreateWaiting
		}
	}
	return got, true, err
}

// CreatedID reads the id of the object at position pos of what a
// completed create activity of shape.Op made: ids picks them from its
// result R, in the order of the intent's items (shape.Items; one object
// when the operation takes one, with no ItemsKey, or the intent does not
// say). A result that does not hold one id per item is refused rather
// than guessed from.
func CreatedID[R any](shape ItemShape, ids func(R) []string) CreatedIDFunc {
	op := shape.Op
	return func(act *Activity, pos int) (string, error) {
		var result R
		if err := DecodeResult(op, act, &result); err != nil {
			return "", err
		}
		got := ids(result)
		want := 1
		if shape.ItemsKey != "" {
			if items, _, ok := shape.Items(act); ok {
				want = len(items)
			}
		}
		if len(got) != want || pos < 0 || pos >= len(got) || got[pos] == "" {
			return "", fmt.Errorf("%s activity %s made %v for %d requested, and the object at position %d cannot be told; "+
				"this is always a bug in the provider or the service", op.Name, act.ID, got, want, pos)
		}
		return got[pos], nil
	}
}
