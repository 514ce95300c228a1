package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// replayMovedCap is how many moved activities custody_policy_replay
// lists; the rest are counted (moved_more).
const replayMovedCap = 100

// NewPolicyReplayDataSource is the custody_policy_replay data source: the
// plan's replay for terraform test and the kit, over two whole lists of
// policies in the shape policy_changes takes.
func NewPolicyReplayDataSource() datasource.DataSource {
	return newDataSource("policy_replay", policyReplaySchema(), readPolicyReplay)
}

type policyReplayModel struct {
	Before            rawDynamicValue `tfsdk:"before"`
	After             rawDynamicValue `tfsdk:"after"`
	Days              types.Int64     `tfsdk:"days"`
	MaxActivities     types.Int64     `tfsdk:"max_activities"`
	Replayed          types.Int64     `tfsdk:"replayed"`
	NotRebuilt        types.Int64     `tfsdk:"not_rebuilt"`
	NotRebuiltReasons types.Map       `tfsdk:"not_rebuilt_reasons"`
	Moved             types.List      `tfsdk:"moved"`
	MovedMore         types.Int64     `tfsdk:"moved_more"`
}

var replayMovedType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"activity_id": types.StringType, "activity_type": types.StringType, "before": types.StringType, "after": types.StringType,
}}

func policyReplaySchema() schema.Schema {
	policies := func(what string) schema.DynamicAttribute {
		return schema.DynamicAttribute{Required: true, CustomType: rawDynamicType{},
			MarkdownDescription: what + ": a list of policies in the shape `provider::custody::policy_changes` takes (`effect`, " +
				"`condition`, `consensus`, `time`, and optionally `id` and `name`)."}
	}
	return schema.Schema{
		MarkdownDescription: "Replays the organization's activities of the last `days` against two lists of policies, as a plan " +
			"with the provider's `replay` setting does under each change: each activity is rebuilt as a request and decided by " +
			"both lists. It compares whole lists, so for a plan of one change its figures are the plan's. It reads the service " +
			"(`list_activities`, `list_private_keys`, `get_organization_configs`), so it is not pure: under `terraform test` it " +
			"needs the emulator. Only counts, activity ids and types, and outcomes are kept.",
		Attributes: map[string]schema.Attribute{
			"before": policies("The policies before the change"),
			"after":  policies("The policies after the change"),
			"days": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.Between(1, maxReplayDays)},
				MarkdownDescription: fmt.Sprintf("How many days of activities to replay (1 to %d, default %d).", maxReplayDays, defaultReplayDays)},
			"max_activities": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.Between(1, maxReplayMaxActivities)},
				MarkdownDescription: fmt.Sprintf("The most activities read (default %d).", defaultReplayMaxActivities)},
			"replayed":    schema.Int64Attribute{Computed: true, MarkdownDescription: "How many activities were rebuilt and decided."},
			"not_rebuilt": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many activities could not be rebuilt."},
			"not_rebuilt_reasons": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
				MarkdownDescription: "How many activities could not be rebuilt, by reason."},
			"moved": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: fmt.Sprintf("The activities the two lists decide apart, newest first, at most %d: each with "+
					"`provider::custody::policy_decision`'s outcome strings.", replayMovedCap),
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"activity_id":   schema.StringAttribute{Computed: true, MarkdownDescription: "The activity's id."},
					"activity_type": schema.StringAttribute{Computed: true, MarkdownDescription: "The activity's type."},
					"before":        schema.StringAttribute{Computed: true, MarkdownDescription: "The verdict of `before`."},
					"after":         schema.StringAttribute{Computed: true, MarkdownDescription: "The verdict of `after`."},
				}}},
			"moved_more": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many moved activities `moved` leaves out."},
		},
	}
}

func readPolicyReplay(ctx context.Context, d *dataSourceBase, m *policyReplayModel, diags *diag.Diagnostics) {
	args := [2]argument{{position: 0}, {position: 1}}
	before, ferr := readDecisionPolicies(args[0].root(m.Before.terraformValue(), "before"))
	if ferr != nil {
		diags.AddAttributeError(path.Root("before"), "Invalid before", ferr.Text)
		return
	}
	after, ferr := readDecisionPolicies(args[1].root(m.After.terraformValue(), "after"))
	if ferr != nil {
		diags.AddAttributeError(path.Root("after"), "Invalid after", ferr.Text)
		return
	}
	days, most := defaultReplayDays, defaultReplayMaxActivities
	if !m.Days.IsNull() {
		days = int(m.Days.ValueInt64())
	}
	if !m.MaxActivities.IsNull() {
		most = int(m.MaxActivities.ValueInt64())
	}
	org, err := replayOrg(ctx, d.pd)
	if err != nil {
		diags.AddError("Replay not made", err.Error())
		return
	}
	h, _, err := readHistory(ctx, d.pd, org, days, most)
	if err != nil {
		addAPIError(diags, "Replay not made", client.QueryListActivities, "the activities of the last "+fmt.Sprint(days)+" days", err)
		return
	}
	b, a := enginePolicies(before), enginePolicies(after)
	res := h.Replay(h.Whole(b, a), review.ChangedVersions(b, a))
	reasons := map[string]attr.Value{}
	for why, n := range res.NotRebuilt {
		reasons[why] = types.Int64Value(int64(n))
	}
	moved := make([]attr.Value, 0, min(len(res.Moved), replayMovedCap))
	for _, mv := range res.Moved[:min(len(res.Moved), replayMovedCap)] {
		moved = append(moved, types.ObjectValueMust(replayMovedType.AttrTypes, map[string]attr.Value{
			"activity_id": types.StringValue(mv.ActivityID), "activity_type": types.StringValue(mv.Type),
			"before": types.StringValue(mv.Before), "after": types.StringValue(mv.After)}))
	}
	m.Replayed = types.Int64Value(int64(res.Replayed))
	m.NotRebuilt = types.Int64Value(int64(sumCounts(res.NotRebuilt)))
	m.NotRebuiltReasons = types.MapValueMust(types.Int64Type, reasons)
	m.Moved = types.ListValueMust(replayMovedType, moved)
	m.MovedMore = types.Int64Value(int64(len(res.Moved) - len(moved)))
}
