package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// The provider block's controls: rules the organization declares (no one
// signs alone; nobody exports keys), which every plan that changes
// custody_policy content is held to (see resource_policy_access_review.go).

// controlModel is one element of controls.
type controlModel struct {
	Name          types.String `tfsdk:"name"`
	ActivityTypes types.List   `tfsdk:"activity_types"`
	AtMost        types.String `tfsdk:"at_most"`
	OnNotProved   types.String `tfsdk:"on_not_proved"`
	OnOutside     types.String `tfsdk:"on_outside_breach"`
}

// What a control, or a deny that never applies, does to the plan when it
// is not proved: fail it (the default) or warn.
const (
	onNotProvedError   = "error"
	onNotProvedWarning = "warning"
)

// neverApplyingDenyAttribute is the provider's never_applying_deny.
func neverApplyingDenyAttribute() schema.Attribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "What a plan does with a `custody_policy` deny that is proved never to apply (for every request, " +
			"its outcome is not applicable, an error or time-inactive: a guardrail that guards nothing, such as a deny reading a " +
			"misspelt field): `" + onNotProvedError + "` (the default) fails the plan, `" + onNotProvedWarning + "` warns.",
		Validators: []validator.String{stringvalidator.OneOf(onNotProvedError, onNotProvedWarning)},
	}
}

func controlsAttribute() schema.Attribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Controls the organization's policies must keep, judged in every plan of a configuration with a " +
			"`custody_policy` or `custody_policies_exclusive`, whether or not it changes a policy. Each names activity types and " +
			"what they may be at most: `consensus` (no single non-root user may be allowed alone: at least one approval by " +
			"someone else) or `denied` (no set of non-root users may be allowed at all; only the root quorum). Each is proved, " +
			"not sampled, twice. **Newly broken by the plan:** the provider compiles the organization's policies as the plan " +
			"found them, managed and unmanaged, with each changed policy in whichever version allows more (so the verdict does " +
			"not depend on the order Terraform applies the changes in), and asks a solver for a request that breaks the control; " +
			"one that a planned change newly lets through fails the plan on that resource (`Control broken: <name>`, with the " +
			"request as HCL that `provider::custody::policy_decision` accepts). **Broken by the organization:** a request the " +
			"organization allowed as found and still allows as the plan leaves it (a grant added outside Terraform, or one the " +
			"configuration holds) fails the plan too (`Control broken: <name>`, naming each policy that lets the request " +
			"through), unless the control's " +
			"`on_outside_breach` says `warning`. Between them the two name every request the plan leaves that breaks the " +
			"control, each breach once. The second is judged once per command, at the first `custody_policy` planned (on the " +
			"organization as found, with the changes planned so far), and again by `custody_policies_exclusive`, which counts " +
			"its removals as done. It is not judged by destroy plans, `-refresh-only` plans or the apply of a saved plan " +
			"(Terraform plans no unchanged resource again there); with `-target`, only when a policy or the exclusive resource " +
			"is targeted. A control the analysis cannot decide fails the plan too (`Control not proved: <name>`, naming what " +
			"stopped it), unless its `on_not_proved` says `warning`. A change whose content is known only at apply is judged at " +
			"apply. See the guide \"Reviewing policy changes\" for the request model the proofs hold under.",
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "The control's name, shown in its errors and warnings (`Control broken: <name>`).",
					Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"activity_types": schema.ListAttribute{
					Required:    true,
					ElementType: types.StringType,
					MarkdownDescription: "The activity types the control covers, each an `ACTIVITY_TYPE_*` of the service, such as " +
						"`" + client.OpSignTransaction.Type + "`; a type the service does not have is an error that names the closest one.",
					Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(validActivityType())},
				},
				"at_most": schema.StringAttribute{
					Required: true,
					MarkdownDescription: "`" + review.AtMostConsensus + "`: no single non-root user may be allowed alone. `" +
						review.AtMostDenied + "`: no non-root user may be allowed, with any approvers; only the root quorum.",
					Validators: []validator.String{stringvalidator.OneOf(review.AtMostConsensus, review.AtMostDenied)},
				},
				"on_outside_breach": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "What the plan does when the organization's policies break the control as the plan " +
						"leaves them, rather than a planned change newly breaking it: a grant added outside Terraform, or one the " +
						"configuration already held. `" + onNotProvedError + "` (the default) fails the plan (`Control broken: " +
						"<name>`, naming each policy that takes part); `" + onNotProvedWarning + "` warns, for a team adopting an " +
						"organization that already breaks the control. A configuration that declares its policies whole with " +
						"`custody_policies_exclusive` sets `" + onNotProvedWarning + "`: Terraform plans every `custody_policy` " +
						"before the exclusive resource that lists it, so the first policy planned cannot know that the apply " +
						"removes the outside grant; the exclusive resource then judges the organization as its removals leave it, " +
						"and fails the plan if the control is still broken.",
					Validators: []validator.String{stringvalidator.OneOf(onNotProvedError, onNotProvedWarning)},
				},
				"on_not_proved": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "What the plan does when the control can be neither proved to hold nor shown broken " +
						"(`Control not proved: <name>`, naming what stopped the proof, such as a `CronSpan` or a value whose type " +
						"only an uploaded ABI gives; or the organization's policies could not be read): `" + onNotProvedError +
						"` (the default) fails it, `" + onNotProvedWarning + "` warns.",
					Validators: []validator.String{stringvalidator.OneOf(onNotProvedError, onNotProvedWarning)},
				},
			},
		},
	}
}

// validActivityType accepts a catalogued activity type, and suggests the
// closest one for a misspelt type, as policy_decision does.
func validActivityType() validator.String {
	return stringCheck{described("value must be an activity type of the service, such as " + client.OpSignTransaction.Type),
		"Unknown activity type", func(s string) string {
			if why := unknownActivityType(s, client.OpSignTransaction.Type); why != "" {
				return why + "."
			}
			return ""
		}}
}

// unknownActivityType is why s is not an activity type of the service,
// naming the closest one, or else example; "" for a catalogued type.
func unknownActivityType(s, example string) string {
	if _, ok := policylang.LookupActivity(s); ok {
		return ""
	}
	if closest := policylang.ClosestActivityType(s); closest != "" {
		return fmt.Sprintf("%q is not an activity type of the service; the closest is %s", s, closest)
	}
	return fmt.Sprintf("%q is not an activity type of the service (%s, say)", s, example)
}

// readControls reads the controls attribute for Configure. The schema has
// checked each literal; an unknown value cannot be judged with, so it is
// an error, as for the other provider settings.
func readControls(ctx context.Context, v types.List, diags *diag.Diagnostics) []review.Control {
	if v.IsNull() {
		return nil
	}
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root("controls"), "Unknown controls",
			"The provider cannot be configured with unknown controls; set them to values known at plan time.")
		return nil
	}
	var models []controlModel
	if diags.Append(v.ElementsAs(ctx, &models, false)...); diags.HasError() {
		return nil
	}
	out := make([]review.Control, 0, len(models))
	for i, m := range models {
		at := path.Root("controls").AtListIndex(i)
		if m.Name.IsUnknown() || m.AtMost.IsUnknown() || m.ActivityTypes.IsUnknown() {
			diags.AddAttributeError(at, "Unknown control", "A control must be known at plan time: its name, activity_types and at_most.")
			continue
		}
		var typesList []types.String
		if diags.Append(m.ActivityTypes.ElementsAs(ctx, &typesList, false)...); diags.HasError() {
			return nil
		}
		c := review.Control{Name: m.Name.ValueString(), AtMost: m.AtMost.ValueString(), ActivityTypes: make([]string, 0, len(typesList)),
			WarnNotProved: m.OnNotProved.ValueString() == onNotProvedWarning, WarnOutsideBreach: m.OnOutside.ValueString() == onNotProvedWarning}
		for j, t := range typesList {
			if t.IsUnknown() {
				diags.AddAttributeError(at.AtName("activity_types").AtListIndex(j), "Unknown control", "A control's activity types must be known at plan time.")
				continue
			}
			c.ActivityTypes = append(c.ActivityTypes, t.ValueString())
		}
		out = append(out, c)
	}
	return out
}
