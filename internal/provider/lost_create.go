package provider

import (
	"context"
	"errors"
	"fmt"

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
// Instead the create saves the resource with a placeholder id
// (client.PlaceholderID) that carries what identifies the request
// (client.Submission: its
// timestampMs and a hash of the exact body, or the activity id), and no
// secret. Terraform marks a resource whose create failed as tainted. The
// next refresh resolves the placeholder (readLostCreate, through
// client.ResolvePlaceholder): to the service's
// object when it made one, which Terraform then replaces as it does any
// tainted resource (or keeps, after `terraform untaint`); to nothing when
// it made none, so that the create is planned again. Delete resolves it
// the same way when no refresh came first (-refresh=false). Either way
// there is exactly one object.
//
// The id, not private state, carries it: Terraform hands a tainted
// object's private state to Read, but not to the Delete that replaces it.

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
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), client.PlaceholderID(lost.Submission, pos))...)
	tflog.Warn(ctx, "create answer lost; saved a placeholder to resolve on the next refresh",
		map[string]any{"operation": operation, "activity_id": lost.Submission.ActivityID, "timestamp_ms": lost.Submission.TimestampMs})
	addAPIError(&resp.Diagnostics, summary, operation, object, &client.NotedError{Err: err, Note: "The request may have reached " +
		"the service, and no answer said whether it acted: the object may exist or not. Terraform saved this resource as " +
		"tainted, with a placeholder id that identifies the request, so that nothing is created twice. The next " +
		"plan or apply finds out: if the service made the object, it is read into state and, being tainted, replaced " +
		"(to keep it instead, run terraform untaint on this resource after a refresh); if it did not, it is created again. " +
		"Apply again once the service answers."})
	return true
}

// createFailed reports a create that failed with err, and returns true: a
// lost answer saves the placeholder (keepLostCreate), any other error is
// reported as it is. It returns false when err is nil.
func createFailed(ctx context.Context, err error, pos int, plan tfsdk.Plan, resp *resource.CreateResponse, summary, operation, object string) bool {
	if err == nil {
		return false
	}
	if !keepLostCreate(ctx, err, pos, plan, resp, summary, operation, object) {
		addAPIError(&resp.Diagnostics, summary, operation, object, err)
	}
	return true
}

// itemCreated ends the create of an item that a batch may have carried:
// a failure is reported as createFailed does, else it returns the id of
// the object at position pos of act (ok false when reported).
func itemCreated(ctx context.Context, act *client.Activity, pos int, err error, createdID client.CreatedIDFunc, plan tfsdk.Plan,
	resp *resource.CreateResponse, summary, operation, object string,
) (id string, ok bool) {
	if createFailed(ctx, err, pos, plan, resp, summary, operation, object) {
		return "", false
	}
	if id, err = createdID(act, pos); err != nil {
		resp.Diagnostics.AddError(summary, err.Error())
		return "", false
	}
	return id, true
}

// resolvePlaceholder is client.ResolvePlaceholder with a failed search
// reported in diags (ok false).
func resolvePlaceholder(ctx context.Context, pd *providerData, diags *diag.Diagnostics, op client.Operation, stateID string,
	id client.CreatedIDFunc,
) (got client.LostCreate, isPlaceholder, ok bool) {
	got, isPlaceholder, err := pd.client.ResolvePlaceholder(ctx, op, stateID, id)
	if err != nil {
		addAPIError(diags, "Error resolving a create whose answer was lost", client.QueryListActivities,
			"the "+op.Name+" request sent at timestampMs "+got.Submission.TimestampMs, err)
		return got, true, false
	}
	return got, isPlaceholder, true
}

// readLostCreate is the start of Read for a resource that creates through
// op: a placeholder is resolved first. It returns true when Read should go
// on, with the object's id in resp.State; false when the placeholder was
// settled here (left for the create to be planned again, kept while its
// activity waits) or an error was reported.
func readLostCreate(ctx context.Context, pd *providerData, req resource.ReadRequest, resp *resource.ReadResponse, op client.Operation,
	id client.CreatedIDFunc,
) bool {
	var stateID string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &stateID)...)
	if resp.Diagnostics.HasError() {
		return false
	}
	got, isPlaceholder, ok := resolvePlaceholder(ctx, pd, &resp.Diagnostics, op, stateID, id)
	act := got.Activity
	switch {
	case !ok:
		return false
	case !isPlaceholder:
		return true
	case got.Result == client.LostCreateMadeNothing:
		fields := map[string]any{"operation": op.Name, "placeholder": stateID}
		if act != nil {
			fields["activity_id"], fields["status"] = act.ID, act.Status
		}
		tflog.Warn(ctx, "the create whose answer was lost made nothing; removing the placeholder so that it is planned again", fields)
		resp.State.RemoveResource(ctx)
		return false
	case got.Result == client.LostCreateWaiting:
		resp.Diagnostics.AddWarning("A create whose answer was lost is still waiting",
			fmt.Sprintf("Activity %s (%s), whose answer an earlier apply lost, is %s (fingerprint %s). This resource stays a "+
				"placeholder until it ends; the next apply replaces it and adopts the activity instead of submitting it again.",
				act.ID, act.Type, act.Status, act.Fingerprint))
		return false
	}
	tflog.Info(ctx, "resolved a create whose answer was lost", map[string]any{"operation": op.Name, "activity_id": act.ID, "id": got.ObjectID})
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), got.ObjectID)...)
	return !resp.Diagnostics.HasError()
}

// deleteLostCreate is the start of Delete: for a placeholder that no
// refresh resolved, it finds the object, if any, and returns its id to
// delete; ok is false when there is nothing to delete or an error was
// reported. For any other resource it returns ok and the id in state.
func deleteLostCreate(ctx context.Context, pd *providerData, resp *resource.DeleteResponse, op client.Operation,
	stateID string, id client.CreatedIDFunc,
) (string, bool) {
	got, isPlaceholder, ok := resolvePlaceholder(ctx, pd, &resp.Diagnostics, op, stateID, id)
	act := got.Activity
	switch {
	case !ok:
		return "", false
	case !isPlaceholder:
		return stateID, true
	case got.Result == client.LostCreateWaiting:
		resp.Diagnostics.AddWarning("A create whose answer was lost is still waiting",
			fmt.Sprintf("Activity %s (%s) is %s (fingerprint %s): it has made nothing to delete yet. If it is approved it makes "+
				"the object, which a later create of the same configuration adopts; reject it if the object is no longer wanted.",
				act.ID, act.Type, act.Status, act.Fingerprint))
		return "", false
	case got.Result == client.LostCreateMadeNothing:
		return "", false
	}
	return got.ObjectID, true
}
