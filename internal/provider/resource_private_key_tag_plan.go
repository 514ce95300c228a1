package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

var _ resource.ResourceWithModifyPlan = &privateKeyTagResource{}

// ModifyPlan reviews a tag's deletion (access_review_tags.go): every
// policy that names the tag decides, after it, as if no key carried it.
func (r *privateKeyTagResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.pd == nil || r.pd.review == nil || !req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	var state privateKeyTagModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if strings.HasPrefix(state.ID.ValueString(), client.LostCreateIDPrefix) {
		return // a create whose answer was lost: no policy can name a tag id nobody has seen
	}
	r.pd.review.tagRemoval(ctx, state.ID.ValueString(), state.Name.ValueString(), &resp.Diagnostics)
}
