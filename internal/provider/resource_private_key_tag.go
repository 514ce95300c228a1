package provider

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

var _ importableResource = &privateKeyTagResource{}

// List cache keys. The cached values are the client's response pointers, so
// that any other resource or data source sharing a key gets the same type.
const (
	privateKeyTagsListKey = "private_key_tags"
	privateKeysListKey    = "private_keys"
)

// NewPrivateKeyTagResource is the custody_private_key_tag resource.
func NewPrivateKeyTagResource() resource.Resource {
	return &privateKeyTagResource{resourceBase{typeName: "private_key_tag", identity: idIdentity("private key tag")}}
}

type privateKeyTagResource struct{ resourceBase }

type privateKeyTagModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	PrivateKeyIDs types.Set    `tfsdk:"private_key_ids"`
	resourceTimeouts
}

func (r *privateKeyTagResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	to := timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
		CreateDescription: waitFor(client.OpCreatePrivateKeyTag),
		UpdateDescription: waitFor(client.OpUpdatePrivateKeyTag),
		DeleteDescription: waitFor(client.OpDeletePrivateKeyTags),
	}, "How long create, update and delete wait for their activity, approvals included.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "A private key tag: a named label on a set of private keys, which policies can refer to " +
			"(for example `private_key.tags.contains('<tag id>')`).\n\n" +
			"Create submits `" + client.OpCreatePrivateKeyTag.Type + "` with the tag's keys. Update renames the tag and adds and " +
			"removes keys in one `" + client.OpUpdatePrivateKeyTag.Type + "`, so the tag id never changes. Delete submits " +
			"`" + client.OpDeletePrivateKeyTags.Type + "`; the keys stay, without the tag. Any of them may need approvals by other " +
			"users (see `timeouts`).\n\n" +
			"Refresh reads the tag from `list_private_key_tags` and its keys from `list_private_keys` (each key lists its tags); " +
			"both lists are read once per Terraform command however many tags there are. Create and update read nothing back: " +
			"the service answers with the tag id, and the name and keys are what was sent, so applying N tags costs N submits " +
			"and no list. A rename or a key added or removed " +
			"outside Terraform shows as an update; a tag deleted outside Terraform is planned for creation.\n\n" +
			"Import with the tag id: `terraform import custody_private_key_tag.example <tag id>`.",
		Attributes: map[string]schema.Attribute{
			"id": idAttribute("The tag id (`privateKeyTagId`), assigned by the service; also the import id."),
			"name": nameAttribute("The tag's name: 1 to 256 bytes, not only spaces, unique among the organization's private key " +
				"tags. Changed in place."),
			"private_key_ids": schema.SetAttribute{
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				// An empty default (not null) so that leaving the attribute
				// out means "no keys" and matches what refresh reads.
				Default: setdefault.StaticValue(types.SetValueMust(types.StringType, []attr.Value{})),
				MarkdownDescription: "The ids of the private keys that carry the tag. Keys are added and removed in place; the " +
					"keys themselves are not managed here. Leave out (or set to `[]`) for a tag on no keys.",
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(notBlank()),
				},
			},
			"timeouts": to,
		},
	}
}

func (r *privateKeyTagResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan privateKeyTagModel
	timeout, ok := r.readTimed(ctx, req.Plan, &plan, timeouts.Value.Create, &resp.Diagnostics)
	if !ok {
		return
	}
	keys := privateKeyTagStrings(ctx, plan.PrivateKeyIDs, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	params := client.CreatePrivateKeyTagParams{PrivateKeyTagName: plan.Name.ValueString(), PrivateKeyIDs: keys}
	out, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).CreatePrivateKeyTag, params)
	r.forgetLists()
	if keepLostCreate(ctx, err, 0, req.Plan, resp, "Error creating private key tag", client.OpCreatePrivateKeyTag.Name, "private key tag "+plan.Name.String()) {
		return
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error creating private key tag", client.OpCreatePrivateKeyTag.Name, "private key tag "+plan.Name.String(),
			r.importAdvice(ctx, plan.Name.ValueString(), err))
		return
	}
	id := out.Result.PrivateKeyTagID
	tflog.Info(ctx, "created private key tag", map[string]any{"private_key_tag_id": id, "activity_id": out.Activity.ID})
	// Nothing to read back: the name and keys are what was sent. Reading
	// the tag list after every create would make applying N tags cost N
	// lists of up to N tags.
	plan.ID = types.StringValue(id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// privateKeyTagCreatedID is the id of the tag a create_private_key_tag
// activity made.
var privateKeyTagCreatedID = client.CreatedID(client.ItemShape{Op: client.OpCreatePrivateKeyTag},
	func(r client.CreatePrivateKeyTagResult) []string { return []string{r.PrivateKeyTagID} })

// privateKeyTagDeletes batches the deletes of tags (see submit.Runner.Item).
var privateKeyTagDeletes = submit.Kind{
	Shape: client.ItemShape{Op: client.OpDeletePrivateKeyTags, ItemsKey: "privateKeyTagIds"},
	Submit: submit.Items((*client.Client).DeletePrivateKeyTags,
		func(ids []string) client.DeletePrivateKeyTagsParams {
			return client.DeletePrivateKeyTagsParams{PrivateKeyTagIDs: ids}
		}),
}

func (r *privateKeyTagResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	if !readLostCreate(ctx, r.pd, req, resp, client.OpCreatePrivateKeyTag, privateKeyTagCreatedID) {
		return
	}
	refreshState(ctx, resp, func(m *privateKeyTagModel, diags *diag.Diagnostics) bool {
		found := r.readInto(ctx, m, diags)
		if !found && !diags.HasError() {
			tflog.Warn(ctx, "private key tag not found; removing it from state", map[string]any{"private_key_tag_id": m.ID.ValueString()})
		}
		return found
	})
}

func (r *privateKeyTagResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.identify(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	updateFrame(ctx, &r.resourceBase, req, resp, func(plan, state *privateKeyTagModel, timeout time.Duration, diags *diag.Diagnostics) {
		want := privateKeyTagStrings(ctx, plan.PrivateKeyIDs, diags)
		have := privateKeyTagStrings(ctx, state.PrivateKeyIDs, diags)
		if diags.HasError() {
			return
		}
		id := state.ID.ValueString()
		params := client.UpdatePrivateKeyTagParams{
			PrivateKeyTagID:     id,
			AddPrivateKeyIDs:    privateKeyTagMissing(want, have),
			RemovePrivateKeyIDs: privateKeyTagMissing(have, want),
		}
		if plan.Name.ValueString() != state.Name.ValueString() {
			params.NewPrivateKeyTagName = plan.Name.ValueString()
		}
		// Nothing to read back, as after a create.
		plan.ID = state.ID
		if params.NewPrivateKeyTagName == "" && len(params.AddPrivateKeyIDs) == 0 && len(params.RemovePrivateKeyIDs) == 0 {
			return // only timeouts changed
		}
		out, err := submit.Activity(ctx, r.pd.runner, timeout, (*client.Client).UpdatePrivateKeyTag, params)
		r.forgetLists()
		if err != nil {
			addAPIError(diags, "Error updating private key tag", client.OpUpdatePrivateKeyTag.Name, "private key tag "+id, err)
			return
		}
		tflog.Info(ctx, "updated private key tag", map[string]any{"private_key_tag_id": id, "activity_id": out.Activity.ID,
			"added": params.AddPrivateKeyIDs, "removed": params.RemovePrivateKeyIDs})
	})
}

func (r *privateKeyTagResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state privateKeyTagModel
	timeout, ok := r.readTimed(ctx, req.State, &state, timeouts.Value.Delete, &resp.Diagnostics)
	if !ok {
		return
	}
	id, ok := deleteLostCreate(ctx, r.pd, resp, client.OpCreatePrivateKeyTag, state.ID.ValueString(), privateKeyTagCreatedID)
	if !ok {
		return
	}
	deleteItem(ctx, r.pd, timeout, privateKeyTagDeletes, id, "private key tag "+id, "Error deleting private key tag", &resp.Diagnostics,
		privateKeyTagsListKey, privateKeysListKey)
}

// forgetLists drops both lists after a write: a tag change moves the tag
// list (names, times) and the key list (each key's tags).
func (r *privateKeyTagResource) forgetLists() {
	r.pd.lists.Forget(privateKeyTagsListKey)
	r.pd.lists.Forget(privateKeysListKey)
}

// cachedPrivateKeyTags lists the organization's tags once per command,
// for every custody_private_key_tag and custody_import_blocks (see
// percommand.Lists).
func cachedPrivateKeyTags(ctx context.Context, pd *providerData) (*client.ListPrivateKeyTagsResponse, error) {
	return percommand.List(ctx, pd.lists, privateKeyTagsListKey, func(ctx context.Context) (*client.ListPrivateKeyTagsResponse, error) {
		return pd.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
	})
}

// readInto fills m (whose ID is set) from the two cached lists. It reports
// false, with no error, when the tag does not exist.
func (r *privateKeyTagResource) readInto(ctx context.Context, m *privateKeyTagModel, diags *diag.Diagnostics) bool {
	id := m.ID.ValueString()
	tags, err := cachedPrivateKeyTags(ctx, r.pd)
	if err != nil {
		addAPIError(diags, "Error reading private key tag", client.QueryListPrivateKeyTags, "private key tag "+id, err)
		return false
	}
	i := slices.IndexFunc(tags.PrivateKeyTags, func(t client.Tag) bool { return t.TagID == id })
	if i < 0 {
		return false
	}
	tag := tags.PrivateKeyTags[i]
	keys, err := percommand.List(ctx, r.pd.lists, privateKeysListKey,
		func(ctx context.Context) (*client.ListPrivateKeysResponse, error) {
			return r.pd.client.ListPrivateKeys(ctx, client.ListPrivateKeysRequest{})
		})
	if err != nil {
		addAPIError(diags, "Error reading private key tag", client.QueryListPrivateKeys, "private key tag "+id, err)
		return false
	}
	members := []attr.Value{}
	for _, k := range keys.PrivateKeys {
		if slices.Contains(k.PrivateKeyTags, id) {
			members = append(members, types.StringValue(k.PrivateKeyID))
		}
	}
	set, d := types.SetValue(types.StringType, members)
	diags.Append(d...)
	m.Name = types.StringValue(tag.TagName)
	m.PrivateKeyIDs = set
	return true
}

// privateKeyTagStrings reads a known set of strings, sorted, so that the
// activity parameters do not depend on set order.
func privateKeyTagStrings(ctx context.Context, s types.Set, diags *diag.Diagnostics) []string {
	out := []string{}
	if s.IsNull() || s.IsUnknown() {
		return out
	}
	diags.Append(s.ElementsAs(ctx, &out, false)...)
	slices.Sort(out)
	return out
}

// privateKeyTagMissing is a − b for sorted slices, sorted.
func privateKeyTagMissing(a, b []string) []string {
	out := []string{}
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

// importAdvice adds to a create refused because the name is taken the
// import block that adopts the tag that has it, so that the fix is one
// paste: the service says the name exists; the provider finds its id.
func (r *privateKeyTagResource) importAdvice(ctx context.Context, name string, err error) error {
	if d := client.Diagnose(err); d.Code != client.CodeAlreadyExists {
		return err
	}
	tags, lerr := r.pd.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
	if lerr != nil {
		return err
	}
	for _, t := range tags.PrivateKeyTags {
		if t.TagName == name {
			return &client.NotedError{Err: err, Note: importBlockNote("custody_private_key_tag", "private key tag", t.TagID)}
		}
	}
	return err
}
