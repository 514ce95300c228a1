package provider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// A create whose answer was lost (client.LostAnswerError) may have
// made its object or not. Recording nothing would let the next apply
// submit a new body, and the service, unable to tell it from a new
// request, would make a second object: one managed, one orphan.
//
// Instead the create saves the resource with a placeholder id that
// carries what identifies the request (client.Submission: its
// timestampMs and a hash of the exact body, or the activity id), and no
// secret. Terraform marks a resource whose create failed as tainted. The
// next refresh resolves the placeholder (readLostCreate): to the service's
// object when it made one, which Terraform then replaces as it does any
// tainted resource (or keeps, after `terraform untaint`); to nothing when
// it made none, so that the create is planned again. Delete resolves it
// the same way when no refresh came first (-refresh=false). Either way
// there is exactly one object.
//
// The id, not private state, carries it: Terraform hands a tainted
// object's private state to Read, but not to the Delete that replaces it.

// lostCreateIDPrefix starts a placeholder's id, which no object has.
const lostCreateIDPrefix = "unresolved-create-"

// placeholderID is the id of the placeholder of the object at position
// pos of sub (a batch makes several).
func placeholderID(sub client.Submission, pos int) string {
	if sub.ActivityID != "" {
		return fmt.Sprintf("%s%d-activity-%s", lostCreateIDPrefix, pos, sub.ActivityID)
	}
	return fmt.Sprintf("%s%d-%s-%s", lostCreateIDPrefix, pos, sub.TimestampMs, sub.BodySHA256)
}

// submissionOf reads the request a placeholder id stands for, of
// activity type typ, and the object's position in it; ok is false for the
// id of an object.
func submissionOf(typ, id string) (sub client.Submission, pos int, ok bool) {
	rest, ok := strings.CutPrefix(id, lostCreateIDPrefix)
	if !ok {
		return client.Submission{}, 0, false
	}
	at, rest, _ := strings.Cut(rest, "-")
	pos, err := strconv.Atoi(at)
	if err != nil || pos < 0 {
		return client.Submission{}, 0, false
	}
	if activityID, ok := strings.CutPrefix(rest, "activity-"); ok {
		return client.Submission{Type: typ, ActivityID: activityID}, pos, true
	}
	ts, hash, _ := strings.Cut(rest, "-")
	return client.Submission{Type: typ, TimestampMs: ts, BodySHA256: hash}, pos, true
}

// keepLostCreate handles a create that failed with err: when its outcome
// is unknown, it saves the plan as the placeholder and reports the error
// with what happens next, and returns true. Other errors are left to the
// caller.
func keepLostCreate(ctx context.Context, err error, pos int, plan tfsdk.Plan, resp *resource.CreateResponse, summary, operation, object string) bool {
	var lost *client.LostAnswerError
	if !errors.As(err, &lost) {
		return false
	}
	raw, terr := tftypes.Transform(plan.Raw, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil // state holds no unknowns
		}
		return v, nil
	})
	if terr != nil {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("Recording the create whose answer was lost failed (%v); this is always a "+
			"bug in the provider. The create's error: %v", terr, err))
		return true
	}
	resp.State.Raw = raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), placeholderID(lost.Submission, pos))...)
	tflog.Warn(ctx, "create answer lost; saved a placeholder to resolve on the next refresh",
		map[string]any{"operation": operation, "activity_id": lost.Submission.ActivityID, "timestamp_ms": lost.Submission.TimestampMs})
	addAPIError(&resp.Diagnostics, summary, operation, object, &explainedError{err: err, note: "The request may have reached " +
		"the service, and no answer said whether it acted: the object may exist or not. Terraform saved this resource as " +
		"tainted, with a placeholder id that identifies the request, so that nothing is created twice. The next " +
		"plan or apply finds out: if the service made the object, it is read into state and, being tainted, replaced " +
		"(to keep it instead, run terraform untaint on this resource after a refresh); if it did not, it is created again. " +
		"Apply again once the service answers."})
	return true
}

// lostCreateResult is what became of a lost create.
type lostCreateResult int

const (
	lostCreateMadeNothing lostCreateResult = iota // not done, failed or rejected: create again
	lostCreateMade                                // done: the object's id is known
	lostCreateWaiting                             // still waiting for approval or running
)

// resolvePlaceholder resolves stateID when it is a placeholder of a create
// through op: what became of it, the object's id when one was made, and
// the activity when one was found. isPlaceholder is false for the id of an
// object; a failed search is reported in diags (ok false).
func resolvePlaceholder(ctx context.Context, pd *providerData, diags *diag.Diagnostics, op client.Operation, stateID string,
	id func(*client.Activity, int) (string, error),
) (result lostCreateResult, objectID string, act *client.Activity, isPlaceholder, ok bool) {
	sub, pos, isPlaceholder := submissionOf(op.Type, stateID)
	if !isPlaceholder {
		return 0, "", nil, false, true
	}
	act, err := pd.client.FindSubmission(ctx, sub)
	result = lostCreateMadeNothing // no activity: the service never had the request
	if err == nil && act != nil {
		switch act.Status {
		case client.StatusCompleted:
			result = lostCreateMade
			objectID, err = id(act, pos)
		case client.StatusFailed, client.StatusRejected:
			result = lostCreateMadeNothing
		default:
			result = lostCreateWaiting
		}
	}
	if err != nil {
		addAPIError(diags, "Error resolving a create whose answer was lost", client.QueryListActivities,
			"the "+op.Name+" request sent at timestampMs "+sub.TimestampMs, err)
		return 0, "", act, true, false
	}
	return result, objectID, act, true, true
}

// readLostCreate is the start of Read for a resource that creates through
// op: a placeholder is resolved first. It returns true when Read should go
// on, with the object's id in resp.State; false when the placeholder was
// settled here (left for the create to be planned again, kept while its
// activity waits) or an error was reported.
func readLostCreate(ctx context.Context, pd *providerData, req resource.ReadRequest, resp *resource.ReadResponse, op client.Operation,
	id func(*client.Activity, int) (string, error),
) bool {
	var stateID string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &stateID)...)
	if resp.Diagnostics.HasError() {
		return false
	}
	result, objectID, act, isPlaceholder, ok := resolvePlaceholder(ctx, pd, &resp.Diagnostics, op, stateID, id)
	switch {
	case !ok:
		return false
	case !isPlaceholder:
		return true
	case result == lostCreateMadeNothing:
		fields := map[string]any{"operation": op.Name, "placeholder": stateID}
		if act != nil {
			fields["activity_id"], fields["status"] = act.ID, act.Status
		}
		tflog.Warn(ctx, "the create whose answer was lost made nothing; removing the placeholder so that it is planned again", fields)
		resp.State.RemoveResource(ctx)
		return false
	case result == lostCreateWaiting:
		resp.Diagnostics.AddWarning("A create whose answer was lost is still waiting",
			fmt.Sprintf("Activity %s (%s), whose answer an earlier apply lost, is %s (fingerprint %s). This resource stays a "+
				"placeholder until it ends; the next apply replaces it and adopts the activity instead of submitting it again.",
				act.ID, act.Type, act.Status, act.Fingerprint))
		return false
	}
	tflog.Info(ctx, "resolved a create whose answer was lost", map[string]any{"operation": op.Name, "activity_id": act.ID, "id": objectID})
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), objectID)...)
	return !resp.Diagnostics.HasError()
}

// deleteLostCreate is the start of Delete: for a placeholder that no
// refresh resolved, it finds the object, if any, and returns its id to
// delete; ok is false when there is nothing to delete or an error was
// reported. For any other resource it returns ok and the id in state.
func deleteLostCreate(ctx context.Context, pd *providerData, resp *resource.DeleteResponse, op client.Operation,
	stateID string, id func(*client.Activity, int) (string, error),
) (string, bool) {
	result, objectID, act, isPlaceholder, ok := resolvePlaceholder(ctx, pd, &resp.Diagnostics, op, stateID, id)
	switch {
	case !ok:
		return "", false
	case !isPlaceholder:
		return stateID, true
	case result == lostCreateWaiting:
		resp.Diagnostics.AddWarning("A create whose answer was lost is still waiting",
			fmt.Sprintf("Activity %s (%s) is %s (fingerprint %s): it has made nothing to delete yet. If it is approved it makes "+
				"the object, which a later create of the same configuration adopts; reject it if the object is no longer wanted.",
				act.ID, act.Type, act.Status, act.Fingerprint))
		return "", false
	case result == lostCreateMadeNothing:
		return "", false
	}
	return objectID, true
}

// createdID reads the id of the object at position pos of what a
// completed create activity of shape.Op made: ids picks them from its
// result R, in the order of the intent's items (shape.Items; one object
// when the operation takes one, with no ItemsKey, or the intent does not
// say). A result that does not
// hold one id per item is refused rather than guessed from.
func createdID[R any](shape client.ItemShape, ids func(R) []string) func(*client.Activity, int) (string, error) {
	op := shape.Op
	return func(act *client.Activity, pos int) (string, error) {
		var result R
		if err := client.DecodeResult(op, act, &result); err != nil {
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
