package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The plan modifier and validator of custody_webhook_endpoint's
// subscriptions, kept apart from the resource's CRUD.

var (
	_ planmodifier.Set = webhookSubscriptionsKeepEquivalent
	_ validator.Set    = webhookUniqueEventTypes
)

// webhookSubscriptionsKeepEquivalent plans the prior subscription for each
// configured one that differs only in the spelling of filters_json (same
// event type and is_active, filters equal as JSON). Terraform accepts a
// planned value equal to the prior one as equivalent to the configuration,
// so `{"a": 1}` in configuration against `{"a":1}` stored (after an import,
// or if the service rewrites the text) plans no change, and in particular
// no replacement: RequiresReplace runs after this.
var webhookSubscriptionsKeepEquivalent = webhookSubscriptionsKeepEquivalentModifier{
	"keeps stored subscriptions whose filters_json equals the configured one as JSON"}

type webhookSubscriptionsKeepEquivalentModifier struct{ described }

func (webhookSubscriptionsKeepEquivalentModifier) PlanModifySet(ctx context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	prior := req.StateValue.Elements()
	planned := req.PlanValue.Elements()
	out := make([]attr.Value, len(planned))
	changed := false
	for i, p := range planned {
		out[i] = p
		for _, s := range prior {
			if !p.Equal(s) && webhookSubscriptionsEquivalent(ctx, p, s) {
				out[i], changed = s, true
				break
			}
		}
	}
	if !changed {
		return
	}
	set, d := types.SetValue(webhookSubscriptionType, out)
	resp.Diagnostics.Append(d...)
	if !d.HasError() {
		resp.PlanValue = set
	}
}

// webhookSubscriptionsEquivalent reports whether two known subscription
// objects are equal but for the spelling of filters_json.
func webhookSubscriptionsEquivalent(ctx context.Context, a, b attr.Value) bool {
	ao, ok1 := a.(types.Object)
	bo, ok2 := b.(types.Object)
	if !ok1 || !ok2 || ao.IsUnknown() || ao.IsNull() || bo.IsUnknown() || bo.IsNull() {
		return false
	}
	aa, ba := ao.Attributes(), bo.Attributes()
	if !aa["event_type"].Equal(ba["event_type"]) || !aa["is_active"].Equal(ba["is_active"]) {
		return false
	}
	af, ok1 := aa["filters_json"].(jsontypes.Normalized)
	bf, ok2 := ba["filters_json"].(jsontypes.Normalized)
	if !ok1 || !ok2 || af.IsUnknown() || bf.IsUnknown() || af.IsNull() || bf.IsNull() {
		return ok1 && ok2 && af.Equal(bf)
	}
	eq, d := af.StringSemanticEquals(ctx, bf)
	return eq && !d.HasError()
}

// webhookUniqueEventTypes refuses two subscriptions of one event type,
// which the service refuses too.
var webhookUniqueEventTypes = webhookUniqueEventTypesValidator{"each event_type may appear in at most one subscription"}

type webhookUniqueEventTypesValidator struct{ described }

func (webhookUniqueEventTypesValidator) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	seen := map[string]bool{}
	for _, e := range req.ConfigValue.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		t, ok := o.Attributes()["event_type"].(types.String)
		if !ok || t.IsNull() || t.IsUnknown() {
			continue // checked once known
		}
		if seen[t.ValueString()] {
			resp.Diagnostics.AddAttributeError(req.Path, "Duplicate webhook subscription",
				"The event type "+t.ValueString()+" appears in more than one subscription. Each event type may be subscribed "+
					"at most once per endpoint; merge the filters into one subscription or use another endpoint.")
			return
		}
		seen[t.ValueString()] = true
	}
}
