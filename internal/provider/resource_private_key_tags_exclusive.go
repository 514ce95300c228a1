package provider

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var (
	_ importableResource              = &privateKeyTagsExclusiveResource{}
	_ resource.ResourceWithModifyPlan = &privateKeyTagsExclusiveResource{}
)

// NewPrivateKeyTagsExclusiveResource is custody_private_key_tags_exclusive:
// the organization's private key tags declared whole (exclusive.go).
func NewPrivateKeyTagsExclusiveResource() resource.Resource {
	return &privateKeyTagsExclusiveResource{exclusiveResource{
		resourceBase: resourceBase{typeName: "private_key_tags_exclusive", identity: organizationIdentity},
		idsAttr:      "private_key_tag_ids",
		what:         "private key tag",
		query:        client.QueryListPrivateKeyTags,
		deleteOp:     client.OpDeletePrivateKeyTags.Name,
		removal:      privateKeyTagRemovalType,
		collection:   privateKeyTagCollection,
	}}
}

type privateKeyTagsExclusiveResource struct{ exclusiveResource }

// privateKeyTagRemovalType is an element of removals. The keys a tag is
// on are left out: only list_private_keys says them, a read this
// resource needs for nothing else.
var privateKeyTagRemovalType = types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType, "name": types.StringType}}

func (r *privateKeyTagsExclusiveResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: exclusiveDoc(
			"The organization's private key tags, declared whole: `private_key_tag_ids` lists every tag the organization keeps.",
			"Refresh reads the tags from the command's one `list_private_key_tags` (shared with every "+
				"`custody_private_key_tag`), so its state holds every tag id the service has.",
			"in one `"+client.OpDeletePrivateKeyTags.Type+"`, which takes each tag off its keys (the keys stay)",
			"tags",
			"Import with the organization id: `terraform import custody_private_key_tags_exclusive.all <organization id>`."),
		Attributes: r.attributes(ctx,
			"The organization id: the collection is the organization's private key tags. Also the import id.",
			"The ids of every private key tag the organization keeps: reference the `custody_private_key_tag` resources "+
				"(`[for t in custody_private_key_tag.all : t.id]`), and list by literal id those managed elsewhere.",
			"The tags the plan removes: each tag whose id `private_key_tag_ids` does not list, with its name.",
			map[string]schema.Attribute{
				"id":   computedString("The tag id."),
				"name": computedString("The tag's name."),
			}, client.OpDeletePrivateKeyTags),
	}
}

// privateKeyTagCollection is the organization's tags.
func privateKeyTagCollection(pd *providerData, _ string) exclusiveCollection {
	return exclusiveCollection{
		claim: privateKeyTagsListKey,
		keys:  []string{privateKeyTagsListKey, privateKeysListKey}, // what custody_private_key_tag's delete forgets
		list: func(ctx context.Context) ([]exclusiveObject, error) {
			tags, err := cachedPrivateKeyTags(ctx, pd)
			if err != nil {
				return nil, err
			}
			out := make([]exclusiveObject, len(tags.PrivateKeyTags))
			for i, t := range tags.PrivateKeyTags {
				out[i] = exclusiveObject{id: t.TagID, removal: types.ObjectValueMust(privateKeyTagRemovalType.AttrTypes,
					map[string]attr.Value{"id": types.StringValue(t.TagID), "name": types.StringValue(t.TagName)})}
			}
			return out, nil
		},
		remove: func(ctx context.Context, timeout time.Duration, ids []string) error {
			_, err := submit.Activity(ctx, pd.runner, timeout, (*client.Client).DeletePrivateKeyTags,
				client.DeletePrivateKeyTagsParams{PrivateKeyTagIDs: ids})
			return err
		},
		review: func(ctx context.Context, ids []string, diags *diag.Diagnostics) {
			if pd.review == nil || len(ids) == 0 {
				return
			}
			tags, err := cachedPrivateKeyTags(ctx, pd)
			if err != nil {
				return // the plan's own read of the list failed already, and said so
			}
			for _, t := range tags.PrivateKeyTags {
				if slices.Contains(ids, t.TagID) {
					pd.review.tagRemoval(ctx, t.TagID, t.TagName, diags) // a tag's removal can widen access (access_review_tags.go)
				}
			}
		},
	}
}
