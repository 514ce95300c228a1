package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// The replay's defaults and bounds: a month of history, and at most
// 20,000 activities (200 sequential pages of list_activities).
const (
	defaultReplayDays          = 30
	maxReplayDays              = 365
	defaultReplayMaxActivities = 20000
	maxReplayMaxActivities     = 200000
)

// replayModel is the provider block's replay object.
type replayModel struct {
	Days          types.Int64 `tfsdk:"days"`
	MaxActivities types.Int64 `tfsdk:"max_activities"`
}

// replaySettings are the replay's settings; nil in providerData when the
// replay is off.
type replaySettings struct {
	days, most int
}

func replayAttribute() schema.Attribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Replay the organization's recent activities in every plan that changes a policy's effect, " +
			"condition, consensus or time (off unless set). Under each change's `Access change` warning the plan then says what " +
			"the change would have done to them: how many activities of the last `days` it would have moved, from which " +
			"decision to which, with the first few activity ids. The activities are read once per command with " +
			"`list_activities`, newest first, 100 a page, so a month of 10,000 activities is 100 sequential requests. The replay " +
			"is an aid, not a control: a list that fails says `Replay not made` and the plan goes on. See the guide \"Reviewing " +
			"policy changes\".",
		Attributes: map[string]schema.Attribute{
			"days": schema.Int64Attribute{
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxReplayDays)},
				MarkdownDescription: fmt.Sprintf("How many days of activities to replay, back from the plan's start "+
					"(1 to %d, default %d).", maxReplayDays, defaultReplayDays),
			},
			"max_activities": schema.Int64Attribute{
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxReplayMaxActivities)},
				MarkdownDescription: fmt.Sprintf("The most activities read (1 to %d, default %d); past it the replay "+
					"stops and says so. Each 100 is one request.", maxReplayMaxActivities, defaultReplayMaxActivities),
			},
		},
	}
}

// readReplay reads the replay object: nil when it is not set.
func readReplay(ctx context.Context, v types.Object, diags *diag.Diagnostics) *replaySettings {
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root("replay"), "Unknown replay",
			"The provider cannot be configured with unknown replay settings; set them to values known at plan time.")
		return nil
	}
	if v.IsNull() {
		return nil
	}
	var m replayModel
	diags.Append(v.As(ctx, &m, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return nil
	}
	s := &replaySettings{days: defaultReplayDays, most: defaultReplayMaxActivities}
	for _, x := range []struct {
		v    types.Int64
		into *int
		name string
	}{{m.Days, &s.days, "days"}, {m.MaxActivities, &s.most, "max_activities"}} {
		if x.v.IsUnknown() {
			diags.AddAttributeError(path.Root("replay").AtName(x.name), "Unknown replay."+x.name,
				"The provider cannot be configured with an unknown replay."+x.name+"; set it to a value known at plan time.")
			return nil
		}
		if !x.v.IsNull() {
			*x.into = int(x.v.ValueInt64())
		}
	}
	return s
}
