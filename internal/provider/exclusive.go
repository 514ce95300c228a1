package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// A collection declared whole (the AWS provider's _exclusive resources):
// the configuration names every object of a collection; refresh reads the
// whole collection from the command's one list of that kind, so its state
// holds every id the service has; the plan shows each id outside the
// configured set as a removal (a computed removals attribute names each
// object); the apply removes what the plan showed and is still outside;
// destroying the resource deletes nothing. What each kind lists, names
// and deletes is its own resource's.

// configuredIDs reads a set of ids from a plan or config: known are the
// ids known now; whole is false when the set itself is unknown, so that
// nothing can be said outside it. An unknown element is an object about
// to be created: never a reason to remove another.
func configuredIDs(s types.Set) (known map[string]bool, whole bool) {
	known = map[string]bool{}
	if s.IsUnknown() {
		return known, false
	}
	for _, v := range s.Elements() {
		str, ok := v.(types.String)
		if !ok || str.IsUnknown() || str.IsNull() {
			continue
		}
		known[str.ValueString()] = true
	}
	return known, true
}

// outsideIDs are the ids of all that are not in keep, sorted.
func outsideIDs(all []string, keep map[string]bool) []string {
	var out []string
	for _, id := range all {
		if !keep[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// missingIDs are the known ids of keep that all lacks, sorted: a
// configured id that does not exist is an error.
func missingIDs(all []string, keep map[string]bool) []string {
	var out []string
	for id := range keep {
		if !slices.Contains(all, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// reportMissing names the configured ids that do not exist.
func reportMissing(attr, what string, missing []string, diags *diag.Diagnostics) {
	for _, id := range missing {
		diags.AddAttributeError(path.Root(attr), "No such "+what,
			fmt.Sprintf("%s lists %q, but the organization has no %s with that id. Take it out of %s, or check the id.", attr, id, what, attr))
	}
}

// exclusiveClaims detects two exclusive resources of one kind (and
// scope) in one command: each claims the whole collection, so each would
// plan the other's objects for removal. Terraform plans each instance
// once per command, but for one it replaces: that it plans again, as a
// create (claimListing).
type exclusiveClaims struct {
	mu      sync.Mutex
	listing map[string]claimed // each key's claim
}

// claimListing claims key for a resource listing listing (claimedIDs);
// replacing is true when it plans a create with no prior state. Terraform
// may plan one instance twice in one command: once, with its state, as an
// update found to need a replacement, then again, without, as the create
// that replaces it. A second claim of key that lists the same ids, one of
// the two with a state and the other without, is that; any other second
// claim is an error. (A duplicate that lists the same ids as an existing
// one and is being created beside it is not told apart.)
func (c *exclusiveClaims) claimListing(key, listing string, replacing bool, typeName string, diags *diag.Diagnostics) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listing == nil {
		c.listing = map[string]claimed{}
	}
	if had, ok := c.listing[key]; ok && (had.listing != listing || had.replacing == replacing || had.twice) {
		twoClaims(typeName, diags)
		return
	} else if ok {
		c.listing[key] = claimed{listing: listing, replacing: replacing, twice: true}
		return
	}
	c.listing[key] = claimed{listing: listing, replacing: replacing}
}

// claimed is one key's claim: what it lists, whether it had no state, and
// whether the replacement's second plan came.
type claimed struct {
	listing          string
	replacing, twice bool
}

// claimedIDs is a configured set as claimListing compares it: its known
// ids, sorted, and how many are unknown.
func claimedIDs(s types.Set) string {
	if s.IsUnknown() {
		return "unknown"
	}
	var known []string
	unknown := 0
	for _, v := range s.Elements() {
		if str, ok := v.(types.String); ok && !str.IsUnknown() {
			known = append(known, str.ValueString())
		} else {
			unknown++
		}
	}
	slices.Sort(known)
	return fmt.Sprintf("%q and %d unknown", known, unknown)
}

// twoClaims is the error of a collection claimed twice.
func twoClaims(typeName string, diags *diag.Diagnostics) {
	diags.AddError("Two "+typeName+" in one configuration",
		"This configuration declares the collection whole twice: each "+typeName+" claims every object of it, so each would "+
			"remove what the other lists. Keep one, and list every id in it.")
}

// removeAll deletes ids in rounds: each round reads the collection again
// (fresh, since a write forgot the cached list) and deletes what is still
// there, so that an object already gone counts as removed and one missing
// id never fails the rest (a batch that refuses a missing id is sent again
// without it).
func removeAll(ctx context.Context, ids []string, present func(context.Context) (map[string]bool, error),
	remove func(context.Context, []string) error,
) (removed []string, err error) {
	const rounds = 3
	for range rounds {
		have, err := present(ctx)
		if err != nil {
			return removed, err
		}
		var now []string
		for _, id := range ids {
			if have[id] {
				now = append(now, id)
			}
		}
		if len(now) == 0 {
			return removed, nil
		}
		err = remove(ctx, now)
		if err == nil {
			return append(removed, now...), nil
		}
		if !errors.Is(err, client.ErrNotFound) {
			return removed, err
		}
	}
	return removed, fmt.Errorf("objects kept disappearing while they were removed, %d rounds in a row", rounds)
}

// importOrganization is ImportState of an exclusive resource whose
// collection is the organization's: its id is the provider's
// organization, the only one it can reach.
func (r *resourceBase) importOrganization(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider must be configured before importing custody_"+r.typeName+
			"; this is always a bug in the provider.")
		return
	}
	id, ok := r.identityImportID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	if want := r.pd.client.OrganizationID(); id != want {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Wrong organization id",
			fmt.Sprintf("Import id %q is not the configured organization %q: custody_%s claims the collection of the "+
				"organization the provider is configured for. Import it with id %q.", id, want, r.typeName, want))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// organizationIdentity is { organization_id? }, which is also the id.
var organizationIdentity = identitySpec{
	attrs:    []identityAttr{organizationAttr("id")},
	importID: func(v map[string]string) string { return v[identityOrganization] },
}

// removalIDs are the ids removals names.
func removalIDs(removals types.List) []string {
	var ids []string
	for _, v := range removals.Elements() {
		if o, ok := v.(types.Object); ok {
			if id, ok := o.Attributes()["id"].(types.String); ok {
				ids = append(ids, id.ValueString())
			}
		}
	}
	return ids
}

// allGone reports whether removals names objects and none of them is in
// all any more: what an apply removed, before a refresh.
func allGone(removals types.List, all []string) bool {
	if removals.IsNull() || removals.IsUnknown() || len(removals.Elements()) == 0 {
		return false
	}
	for _, id := range removalIDs(removals) {
		if slices.Contains(all, id) {
			return false
		}
	}
	return true
}
