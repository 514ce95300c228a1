package provider

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

// importableResource is what every resource of this provider is: it takes
// the provider's data in Configure and can be imported, by id or by
// identity (resource_identity.go). (A wrong key, organization or address
// fails the provider's Configure, before any resource plans.)
type importableResource interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithIdentity
}

// resourceBase is what every resource has in common, as dataSourceBase is
// for data sources: its type name and the provider's data, which Configure
// sets. A resource embeds it and adds Schema and the CRUD methods.
type resourceBase struct {
	typeName string // the name after "custody_"
	identity identitySpec
	pd       *providerData
}

func (r *resourceBase) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.typeName
	// identify checks identity changes itself: the one it allows, a
	// placeholder's resolved to its object, the framework would refuse.
	resp.ResourceBehavior.MutableIdentity = true
}

func (r *resourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ImportState takes the import id, or the identity's id, as the id
// attribute. A resource whose import id says more (a user and a provider,
// a scope) declares its own.
func (r *resourceBase) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if id, ok := r.identityImportID(ctx, req, &resp.Diagnostics); ok {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	}
}

// resourceTimeouts is the timeouts attribute, embedded in the model of
// every resource that waits for activities.
type resourceTimeouts struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (t *resourceTimeouts) timeoutsValue() timeouts.Value { return t.Timeouts }

// timedModel is a resource model with a timeouts attribute.
type timedModel interface{ timeoutsValue() timeouts.Value }

// timeoutOf is timeouts.Value.Create, Update or Delete: the timeout of one
// operation, or the default given.
type timeoutOf func(timeouts.Value, context.Context, time.Duration) (time.Duration, diag.Diagnostics)

// planOrState is req.Plan or req.State.
type planOrState interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// readTimed is the start of Create, Update and Delete: it reads the plan or
// state (from) into m and returns the timeout of the operation that which
// names; the provider's approval_timeout is the default. ok is false when diags holds an error.
func (r *resourceBase) readTimed(ctx context.Context, from planOrState, m timedModel, which timeoutOf, diags *diag.Diagnostics,
) (timeout time.Duration, ok bool) {
	diags.Append(from.Get(ctx, m)...)
	if diags.HasError() {
		return 0, false
	}
	timeout, d := which(m.timeoutsValue(), ctx, r.pd.approvalTimeout)
	diags.Append(d...)
	return timeout, !diags.HasError()
}

// readUpdate is the start of Update: readTimed for the plan, with the
// prior state read into state too.
func (r *resourceBase) readUpdate(ctx context.Context, req resource.UpdateRequest, plan, state timedModel, diags *diag.Diagnostics,
) (timeout time.Duration, ok bool) {
	diags.Append(req.State.Get(ctx, state)...)
	return r.readTimed(ctx, req.Plan, plan, timeouts.Value.Update, diags)
}

// updateFrame is the frame of Update: it reads the plan and the prior
// state, with the update timeout, lets update change the object and fill
// in plan, and saves plan as the new state unless update reported an
// error. A change of timeouts alone reaches Update too: update then
// submits nothing, and the new timeouts are saved all the same.
func updateFrame[M any, PM interface {
	*M
	timedModel
}](ctx context.Context, r *resourceBase, req resource.UpdateRequest, resp *resource.UpdateResponse,
	update func(plan, state *M, timeout time.Duration, diags *diag.Diagnostics),
) {
	var plan, state M
	timeout, ok := r.readUpdate(ctx, req, PM(&plan), PM(&state), &resp.Diagnostics)
	if !ok {
		return
	}
	update(&plan, &state, timeout, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// activityTime is when an activity last changed, which for a completed one
// is when it completed. Resources take their created_at and updated_at from
// it rather than read the object back after a change.
func activityTime(act *client.Activity) timetypes.RFC3339 { return timestampValue(act.UpdatedAt) }

// deleteByActivity submits the delete activity of object (e.g. "policy
// <id>", for messages) and waits for it, then drops the cached lists
// that held the object. An object already gone counts as deleted.
func deleteByActivity[P, R any](ctx context.Context, pd *providerData, timeout time.Duration, send submit.Func[P, R], params P,
	op client.Operation, object, summary string, diags *diag.Diagnostics, lists ...string,
) {
	_, err := submit.Activity(ctx, pd.runner, timeout, send, params)
	deleted(ctx, pd, err, op.Name, object, summary, diags, lists)
}

// deleteItem is deleteByActivity for an operation that deletes several
// objects at once: the delete of item (an id) joins a batch (submit.Runner.Item).
func deleteItem(ctx context.Context, pd *providerData, timeout time.Duration, kind submit.Kind, item any,
	object, summary string, diags *diag.Diagnostics, lists ...string,
) {
	_, _, err := pd.runner.Item(ctx, timeout, kind, item)
	deleted(ctx, pd, err, kind.Shape.Op.Name, object, summary, diags, lists)
}

// deleted ends a delete that operation did with err: it drops the cached
// lists that held the object and reports err, unless the object was
// already gone.
func deleted(ctx context.Context, pd *providerData, err error, operation, object, summary string, diags *diag.Diagnostics, lists []string) {
	for _, key := range lists {
		pd.lists.Forget(key)
	}
	if errors.Is(err, client.ErrNotFound) {
		tflog.Warn(ctx, object+" was already deleted")
		return
	}
	if err != nil {
		addAPIError(diags, summary, operation, object, err)
	}
}

// refreshState is the frame of every Read: it reads the state (resp.State,
// which starts as the request's) into a model
// and lets refresh bring it up to date from the service. The model is
// saved unless refresh reported an error; when refresh finds the object
// gone (found is false, and it has logged why), the resource leaves the
// state, so that the next plan creates it again.
func refreshState[M any](ctx context.Context, resp *resource.ReadResponse,
	refresh func(m *M, diags *diag.Diagnostics) (found bool),
) {
	var m M
	// resp.State starts as req.State; a resolved placeholder (readLostCreate)
	// has put the object's id in it.
	resp.Diagnostics.Append(resp.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	found := refresh(&m, &resp.Diagnostics)
	switch {
	case resp.Diagnostics.HasError():
	case !found:
		resp.State.RemoveResource(ctx)
	default:
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
}

// idAttribute is the id attribute of a resource: assigned when the object
// is created and the same for as long as it exists.
func idAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

// nameAttribute is the required name of an object: 1 to
// client.MaxNameBytes bytes, not only spaces, as the service accepts.
func nameAttribute(desc string, modifiers ...planmodifier.String) schema.StringAttribute {
	return schema.StringAttribute{Required: true, MarkdownDescription: desc, PlanModifiers: modifiers,
		Validators: []validator.String{nameText()}}
}

// timestampAttribute is a read-only RFC 3339 timestamp of a resource.
func timestampAttribute(desc string, modifiers ...planmodifier.String) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: desc, PlanModifiers: modifiers}
}
