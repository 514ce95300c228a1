package provider

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform plans a changed resource again during the apply, after the
// resources it references have applied, and refuses a plan whose known
// values moved ("Provider produced inconsistent final plan"). By then a
// replaced object that the set references is gone, and someone may have
// made another: a list read again would move the removals. So an update
// plans them from what both plans share: the refreshed state (its set is
// every id the refresh found) and its private data, where the refresh
// keeps each object's removal element. A create has no state, and plans
// from the live list.

// exclusiveFoundKey is the private data key of what the refresh found.
const exclusiveFoundKey = "found"

// exclusivePrivateData is the private data of a Read or a plan.
type exclusivePrivateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// keepFound stores the removal element of every object the refresh found,
// as the protocol encodes the list of them (one encoding for every kind's
// elements, nested ones included).
func (r *exclusiveResource) keepFound(ctx context.Context, objects []exclusiveObject, private exclusivePrivateData, diags *diag.Diagnostics) {
	elems := make([]attr.Value, len(objects))
	for i, o := range objects {
		elems[i] = o.removal
	}
	tv, err := types.ListValueMust(r.removal, elems).ToTerraformValue(ctx)
	var dv tfprotov6.DynamicValue
	if err == nil {
		dv, err = tfprotov6.NewDynamicValue(tv.Type(), tv)
	}
	var b []byte
	if err == nil {
		b, err = json.Marshal(dv.MsgPack) // private data is JSON
	}
	if err != nil {
		diags.AddError("Error keeping the refreshed "+r.what+"s", err.Error()+"; this is always a bug in the provider")
		return
	}
	diags.Append(private.SetKey(ctx, exclusiveFoundKey, b)...)
}

// foundBefore is what the refresh found: every id of the state's set,
// sorted, and the removal element of each it kept (an unreadable record
// only costs the removals their words: see named).
func (r *exclusiveResource) foundBefore(ctx context.Context, state tfsdk.State, private exclusivePrivateData, diags *diag.Diagnostics,
) (ids []string, found map[string]attr.Value) {
	var set types.Set
	diags.Append(state.GetAttribute(ctx, path.Root(r.idsAttr), &set)...)
	for _, v := range set.Elements() {
		if s, ok := v.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
			ids = append(ids, s.ValueString())
		}
	}
	slices.Sort(ids)
	found = map[string]attr.Value{}
	b, d := private.GetKey(ctx, exclusiveFoundKey)
	var msgpack []byte
	if d.HasError() || len(b) == 0 || json.Unmarshal(b, &msgpack) != nil {
		return ids, found
	}
	listType := types.ListType{ElemType: r.removal}
	tv, err := (&tfprotov6.DynamicValue{MsgPack: msgpack}).Unmarshal(listType.TerraformType(ctx))
	if err != nil {
		return ids, found
	}
	v, err := listType.ValueFromTerraform(ctx, tv)
	list, ok := v.(types.List)
	if err != nil || !ok {
		return ids, found
	}
	for _, e := range list.Elements() {
		if id := removalIDs(types.ListValueMust(r.removal, []attr.Value{e})); len(id) == 1 {
			found[id[0]] = e
		}
	}
	return ids, found
}

// named is the removals attribute for ids, each as found, or by its id
// alone (its other attributes null) where nothing was kept.
func (r *exclusiveResource) named(ctx context.Context, ids []string, found map[string]attr.Value) types.List {
	elems := make([]attr.Value, 0, len(ids))
	for _, id := range ids {
		if e, ok := found[id]; ok {
			elems = append(elems, e)
			continue
		}
		attrs := make(map[string]attr.Value, len(r.removal.AttrTypes))
		for name, t := range r.removal.AttrTypes {
			attrs[name], _ = t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
		}
		attrs["id"] = types.StringValue(id)
		elems = append(elems, types.ObjectValueMust(r.removal.AttrTypes, attrs))
	}
	return types.ListValueMust(r.removal, elems)
}
