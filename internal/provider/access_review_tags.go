package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// A tag's removal can widen access: the service strips a deleted tag from
// its keys, so a deny on private_key.tags.contains('<tag id>') stops
// applying. Deleting a tag is reviewed as a decision change of every
// policy that names its id: after it, the policy decides as if no key
// carried the tag, which the review writes as the id renamed to one no
// key carries ("<tag id> (deleted)"), and it is held to the controls
// like any change.

// deletedTagSuffix marks, in a policy's after version, the id of a tag
// the plan deletes.
const deletedTagSuffix = " (deleted)"

// tagRemoval reviews the deletion of the tag id (named name), by
// custody_private_key_tag or custody_private_key_tags_exclusive.
func (a *accessReview) tagRemoval(ctx context.Context, id, name string, diags *diag.Diagnostics) {
	list, err := cachedPolicies(ctx, a.pd)
	if err != nil {
		diags.AddWarning("Access review not made", fmt.Sprintf("The provider could not read the organization's policies to review "+
			"deleting private key tag %q (%s): %s", name, id, err))
		for _, ctl := range a.pd.controls {
			controlNotProved(ctl, "deleting private key tag "+id, "the organization's policies could not be read: "+err.Error(), diags)
		}
		return
	}
	for i := range list.all {
		before := policyset.FromClient(&list.all[i])
		after, reads := withoutTag(before, id)
		if !reads {
			continue
		}
		a.review(ctx, review.Change{Before: &before, After: &after}, fmt.Sprintf("%s (tag %s deleted)", before.Name, name),
			fmt.Sprintf("deleting private key tag %q (%s), which policy %q reads", name, id, before.Name), diags)
	}
}

// withoutTag is p deciding as if no key carried the tag id: each quoted
// id renamed to one no key carries; reads is false when p never names it.
func withoutTag(p policyset.Policy, id string) (after policyset.Policy, reads bool) {
	after = p
	for _, field := range []*string{&after.Condition, &after.Consensus, &after.Time} {
		for _, q := range []string{"'", `"`} {
			if strings.Contains(*field, q+id+q) {
				*field = strings.ReplaceAll(*field, q+id+q, q+id+deletedTagSuffix+q)
				reads = true
			}
		}
	}
	return after, reads
}
