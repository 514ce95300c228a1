package provider

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// exclusiveResource is the resource of a collection declared whole
// (exclusive.go) whose removals nothing else judges: the organization's
// private key tags and webhook endpoints, a user's OAuth providers. (The
// lockout guard and the access review judge policies only, so
// custody_policies_exclusive has its own.) Each type gives its schema and
// its collection; this is the rest: refresh, the plan of the removals,
// the apply, and import. It reads and writes attributes by path, since
// each type names its set of ids its own way.
type exclusiveResource struct {
	resourceBase
	idsAttr   string // the configured set of ids, e.g. "endpoint_ids"
	scopeAttr string // "user_id" for a collection of one user's; "" for the organization's
	what      string // one object, for messages: "webhook endpoint"
	query     string // the list's query, for messages
	deleteOp  string // the delete's operation, for messages
	removal   types.ObjectType
	// collection is the collection of scope: the organization id, or the
	// value of scopeAttr.
	collection func(pd *providerData, scope string) exclusiveCollection
}

// exclusiveCollection is what one collection lists and deletes.
type exclusiveCollection struct {
	claim string   // its key among the command's claims (exclusiveClaims)
	keys  []string // the per-command lists that hold it: forgotten before the apply reads, and after a delete
	// list reads the collection from the command's one list of it.
	list func(context.Context) ([]exclusiveObject, error)
	// remove deletes ids: an id already gone is client.ErrNotFound, or no
	// error at all.
	remove func(ctx context.Context, timeout time.Duration, ids []string) error
	// review, when set, judges the plan's removals (ids, each one the
	// live list holds) as the access review does (a tag's: policies that
	// name it stop applying to its keys).
	review func(ctx context.Context, ids []string, diags *diag.Diagnostics)
}

// exclusiveObject is one object of a collection: its id, and its element
// of removals, which names what it holds.
type exclusiveObject struct {
	id      string
	removal attr.Value
}

func (r *exclusiveResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if r.scopeAttr == "" {
		r.importOrganization(ctx, req, resp)
		return
	}
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	id, ok := r.identityImportID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	if strings.TrimSpace(id) == "" {
		resp.Diagnostics.AddError("Invalid import ID for custody_"+r.typeName, "Expected the "+r.scopeAttr+" whose collection to import.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(r.scopeAttr), id)...)
}

// Read puts every id the service has in the state, and no removals: a
// plan then shows each object outside the configuration as one. A user
// gone takes the claim on their collection with them.
func (r *exclusiveResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	diags := &resp.Diagnostics
	scope, _ := r.scope(ctx, req.State, diags)
	if diags.HasError() {
		return
	}
	objects, err := r.collection(r.pd, scope).list(ctx)
	if r.scopeAttr != "" && errors.Is(err, client.ErrNotFound) {
		tflog.Warn(ctx, "custody_"+r.typeName+": the "+r.scopeAttr+" no longer exists; removing the claim from state",
			map[string]any{r.scopeAttr: scope})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addAPIError(diags, "Error reading the "+r.what+"s", r.query, "custody_"+r.typeName, err)
		return
	}
	ids := make([]attr.Value, len(objects))
	for i, o := range objects {
		ids[i] = types.StringValue(o.id)
	}
	diags.Append(resp.State.SetAttribute(ctx, path.Root(r.idsAttr), types.SetValueMust(types.StringType, ids))...)
	diags.Append(resp.State.SetAttribute(ctx, path.Root("removals"), types.ListValueMust(r.removal, []attr.Value{}))...)
	r.keepFound(ctx, objects, resp.Private, diags)
}

// ModifyPlan plans the removals: each object of the collection whose id
// the configured set does not list. The set is read from the plan, after
// every resource it references is planned: an object about to be made
// is an unknown element, never a reason to remove another.
func (r *exclusiveResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.pd == nil || req.Plan.Raw.IsNull() {
		return // a destroy ends the claim and removes nothing
	}
	diags := &resp.Diagnostics
	var ids types.Set
	diags.Append(req.Plan.GetAttribute(ctx, path.Root(r.idsAttr), &ids)...)
	prior := types.ListNull(r.removal)
	if !req.State.Raw.IsNull() {
		diags.Append(req.State.GetAttribute(ctx, path.Root("removals"), &prior)...)
	}
	scope, known := r.scope(ctx, req.Plan, diags)
	if diags.HasError() {
		return
	}
	if !known {
		// Whose collection is known only at apply: so are its removals,
		// and the apply judges them.
		diags.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
		diags.Append(resp.Plan.SetAttribute(ctx, path.Root("removals"), types.ListUnknown(r.removal))...)
		return
	}
	c := r.collection(r.pd, scope)
	r.pd.claims.claimListing(c.claim, claimedIDs(ids), req.State.Raw.IsNull(), "custody_"+r.typeName, diags)
	keep, whole := configuredIDs(ids)
	objects, err := c.list(ctx)
	if err != nil {
		// No removal is planned from a list that was not read whole.
		addAPIError(diags, "Error reading the "+r.what+"s", r.query, "custody_"+r.typeName, err)
		return
	}
	all := exclusiveIDs(objects)
	what := r.what
	if r.scopeAttr != "" {
		what += " of " + strings.TrimSuffix(r.scopeAttr, "_id") + " " + scope
	}
	reportMissing(r.idsAttr, what, missingIDs(all, keep), diags)
	if diags.HasError() {
		return
	}
	removals := types.ListUnknown(r.removal) // the set is known only at apply
	switch {
	case !whole:
	case req.State.Raw.IsNull():
		removals = r.removalsOf(objects, outsideIDs(all, keep))
	default:
		// From what the refresh found, as the plan during the apply will
		// (exclusive_found.go).
		before, found := r.foundBefore(ctx, req.State, req.Private, diags)
		removals = r.named(ctx, outsideIDs(before, keep), found)
		if len(removals.Elements()) == 0 && allGone(prior, before) {
			// What the last apply removed, until a refresh: a plan with
			// -refresh=false then shows no change where there is none.
			removals = prior
		}
	}
	diags.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), scope)...)
	diags.Append(resp.Plan.SetAttribute(ctx, path.Root("removals"), removals)...)
	if c.review != nil && !removals.IsUnknown() {
		var live []string
		for _, id := range removalIDs(removals) {
			if slices.Contains(all, id) {
				live = append(live, id)
			}
		}
		c.review(ctx, live, diags)
	}
}

func (r *exclusiveResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan, &resp.State, timeouts.Value.Create, &resp.Diagnostics)
}

func (r *exclusiveResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan, &resp.State, timeouts.Value.Update, &resp.Diagnostics)
}

// Delete ends the claim and deletes nothing.
func (r *exclusiveResource) Delete(ctx context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
	tflog.Info(ctx, "custody_"+r.typeName+" destroyed: the claim ends, and no "+r.what+" is deleted")
}

// apply removes what the plan showed and is still outside the set, now
// known, judged on a fresh list, and saves the plan as the state. An
// object already gone counts as removed (removeAll).
func (r *exclusiveResource) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, which timeoutOf, diags *diag.Diagnostics) {
	var ids types.Set
	var removals types.List
	var to timeouts.Value
	diags.Append(plan.GetAttribute(ctx, path.Root(r.idsAttr), &ids)...)
	diags.Append(plan.GetAttribute(ctx, path.Root("removals"), &removals)...)
	diags.Append(plan.GetAttribute(ctx, path.Root("timeouts"), &to)...)
	scope, _ := r.scope(ctx, plan, diags)
	if diags.HasError() {
		return
	}
	timeout, d := which(to, ctx, r.pd.approvalTimeout)
	if diags.Append(d...); diags.HasError() {
		return
	}
	c := r.collection(r.pd, scope)
	keep, _ := configuredIDs(ids)
	r.forget(c) // the plan's list may be older than what this apply changed
	objects, err := c.list(ctx)
	if err != nil {
		addAPIError(diags, "Error reading the "+r.what+"s", r.query, "custody_"+r.typeName, err)
		return
	}
	if removals.IsUnknown() {
		removals = r.removalsOf(objects, outsideIDs(exclusiveIDs(objects), keep))
	}
	var gone []string
	for _, id := range removalIDs(removals) {
		if !keep[id] { // listed now: an id known only at apply
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		present := func(ctx context.Context) (map[string]bool, error) {
			objects, err := c.list(ctx)
			if err != nil {
				return nil, err
			}
			have := make(map[string]bool, len(objects))
			for _, o := range objects {
				have[o.id] = true
			}
			return have, nil
		}
		remove := func(ctx context.Context, ids []string) error {
			err := c.remove(ctx, timeout, ids)
			r.forget(c)
			return err
		}
		removed, err := removeAll(ctx, gone, present, remove)
		tflog.Info(ctx, "removed "+r.what+"s outside custody_"+r.typeName, map[string]any{"ids": removed})
		if err != nil {
			addAPIError(diags, "Error removing "+r.what+"s outside custody_"+r.typeName, r.deleteOp,
				r.what+"s "+strings.Join(gone, ", "), err)
			return
		}
	}
	state.Raw = plan.Raw.Copy()
	diags.Append(state.SetAttribute(ctx, path.Root("id"), scope)...)
	diags.Append(state.SetAttribute(ctx, path.Root("removals"), removals)...)
}

// scope is whose collection from holds: the provider's organization, or
// the value of scopeAttr (known is false while it is unknown).
func (r *exclusiveResource) scope(ctx context.Context, from interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}, diags *diag.Diagnostics,
) (scope string, known bool) {
	if r.scopeAttr == "" {
		return r.pd.client.OrganizationID(), true
	}
	var v types.String
	diags.Append(from.GetAttribute(ctx, path.Root(r.scopeAttr), &v)...)
	return v.ValueString(), !v.IsUnknown() && !v.IsNull()
}

// forget drops the command's lists of c, so that the next read is fresh.
func (r *exclusiveResource) forget(c exclusiveCollection) {
	for _, key := range c.keys {
		r.pd.lists.Forget(key)
	}
}

// removalsOf is the removals attribute for ids, in their order.
func (r *exclusiveResource) removalsOf(objects []exclusiveObject, ids []string) types.List {
	elems := make([]attr.Value, 0, len(ids))
	for _, id := range ids {
		if i := slices.IndexFunc(objects, func(o exclusiveObject) bool { return o.id == id }); i >= 0 {
			elems = append(elems, objects[i].removal)
		}
	}
	return types.ListValueMust(r.removal, elems)
}

// exclusiveIDs are the ids of objects.
func exclusiveIDs(objects []exclusiveObject) []string {
	ids := make([]string, len(objects))
	for i, o := range objects {
		ids[i] = o.id
	}
	return ids
}
