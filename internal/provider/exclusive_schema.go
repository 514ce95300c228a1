package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// What the exclusive resources of exclusiveResource share in their
// schema and documentation, written once.

// exclusiveDoc describes an exclusive resource: what it claims (whole,
// one sentence naming the set attribute), how refresh reads it (refresh),
// how the apply deletes (deletes), the objects the lockout guard does not
// judge (unguarded) and how to import it (importing).
func exclusiveDoc(whole, refresh, deletes, unguarded, importing string) string {
	return whole + " Every object outside the set is drift, planned for removal and removed on apply, like the AWS " +
		"provider's `_exclusive` resources: one made outside Terraform (through the dashboard or a script) is seen by " +
		"every plan (`terraform plan -detailed-exitcode` exits 2), and the plan names each object it removes, with what " +
		"it holds (`removals`). An id known only at apply (an object this apply creates) never makes another object a " +
		"removal; an id that does not exist is an error.\n\n" +
		refresh + " The apply reads the list again and removes each object the plan showed that is still outside the " +
		"set, " + deletes + ". One already gone counts as removed, so an object that its own resource of this " +
		"configuration deletes or replaces is never removed twice; reference each managed object's id in the set, and " +
		"it is never removed. Destroying this resource deletes nothing: it only ends the claim.\n\n" +
		"The lockout guard covers policy management only: it does not judge the removal of " + unguarded + ", so " +
		"review `removals` before applying.\n\n" +
		"Declare one per collection: two would each remove what the other lists. " + importing
}

// attributes are the attributes every exclusive resource has: id, the
// set of ids, removals (each element with the attributes of removal) and
// the timeouts of the apply, which deletes with op.
func (r *exclusiveResource) attributes(ctx context.Context, id, ids, removals string, removal map[string]schema.Attribute,
	op client.Operation,
) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": idAttribute(id),
		r.idsAttr: schema.SetAttribute{
			ElementType:         types.StringType,
			Required:            true,
			MarkdownDescription: ids,
			Validators:          []validator.Set{setvalidator.ValueStringsAre(notBlank())},
		},
		"removals": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: removals + " Sorted by id; empty when the collection holds only what the set lists. After " +
				"an apply, until the next refresh, it keeps what that apply removed, so that a plan with `-refresh=false` " +
				"shows no change.",
			NestedObject: schema.NestedAttributeObject{Attributes: removal},
		},
		"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true,
			CreateDescription: waitFor(op), UpdateDescription: waitFor(op),
		}, "How long create and update wait for each activity that removes, approvals included."),
	}
}

// userCollectionIdentity is { user_id, organization_id? }: a collection of
// one user's, named by the user (also the import id).
var userCollectionIdentity = identitySpec{
	attrs: []identityAttr{
		{name: "user_id", state: "user_id", required: true, desc: "The user whose collection the resource declares whole."},
		organizationAttr(""),
	},
	importID: func(v map[string]string) string { return v["user_id"] },
}
