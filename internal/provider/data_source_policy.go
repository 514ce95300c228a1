package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewPolicyDataSource is the custody_policy data source.
func NewPolicyDataSource() datasource.DataSource {
	return newDataSource("policy", policySchema(), readPolicy)
}

// policyDataSourceModel is one policy as read: the custody_policy data
// source and each item of custody_policies, whose attributes both come from
// policyDataSourceAttributes.
type policyDataSourceModel struct {
	ID        types.String      `tfsdk:"id"`
	Name      types.String      `tfsdk:"name"`
	Effect    types.String      `tfsdk:"effect"`
	Condition types.String      `tfsdk:"condition"`
	Consensus types.String      `tfsdk:"consensus"`
	Notes     types.String      `tfsdk:"notes"`
	Time      types.String      `tfsdk:"time"`
	CreatedAt timetypes.RFC3339 `tfsdk:"created_at"`
	UpdatedAt timetypes.RFC3339 `tfsdk:"updated_at"`
}

// policyDataSourceAttributes are the attributes of one policy; id is the
// id attribute, an input of custody_policy and an output of custody_policies.
func policyDataSourceAttributes(id schema.StringAttribute) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":     id,
		"name":   computedString("The policy's name."),
		"effect": computedString("What the policy does to the activities it matches: `EFFECT_ALLOW` or `EFFECT_DENY`."),
		"condition": computedString("The expression that selects the activities the policy applies to, e.g. " +
			"`activity.resource == 'PRIVATE_KEY'`; null when the policy applies to every activity."),
		"consensus": computedString("The expression that says which approvals the matched activities need, e.g. " +
			"`approvers.count() >= 2`; null when none."),
		"notes":      computedString("Free text about the policy; the empty string when there are none (the service stores \"\")."),
		"time":       computedString("The expression that says when the policy is active; null when always."),
		"created_at": computedTimestamp("When the policy was created, RFC 3339 (UTC)."),
		"updated_at": computedTimestamp("When the policy was last changed, RFC 3339 (UTC)."),
	}
}

// policyDataSourceFlatten converts one policy of the service. Absent
// expressions ("" from the service) are null, as in the custody_policy
// resource; notes stay a string, as there.
func policyDataSourceFlatten(p client.Policy) policyDataSourceModel {
	return policyDataSourceModel{
		ID:        types.StringValue(p.PolicyID),
		Name:      types.StringValue(p.PolicyName),
		Effect:    types.StringValue(p.Effect),
		Condition: optionalString(p.Condition),
		Consensus: optionalString(p.Consensus),
		Notes:     types.StringValue(p.Notes),
		Time:      optionalString(p.Time),
		CreatedAt: timestampValue(p.CreatedAt),
		UpdatedAt: timestampValue(p.UpdatedAt),
	}
}

// policyDataSourceID refuses an id the service could never match.
var policyDataSourceID = noSpaces("a policy id")

func policySchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "One policy of the organization: its effect and the expressions that say " +
			"when it applies, which approvals it needs and when it is active. An unknown id is an error. " +
			"It reads the policy from one `list_policies` per Terraform command, shared with every `custody_policy` " +
			"resource and data source, so many of them cost one request. " +
			"Use `custody_policies` to list every policy.",
		Attributes: policyDataSourceAttributes(requiredArgument("The id of the policy to read, e.g. `custody_policy.example.id`.",
			policyDataSourceID)),
	}
}

func readPolicy(ctx context.Context, d *dataSourceBase, m *policyDataSourceModel, diags *diag.Diagnostics) {
	id := m.ID.ValueString()
	// The list shared with every custody_policy of the command answers as
	// get_policy would, and N such data sources cost one request, not N.
	list, err := cachedPolicies(ctx, d.pd)
	if err != nil {
		addAPIError(diags, "Error reading policy", client.QueryListPolicies, "policy "+id, err)
		return
	}
	got, ok := list.byID[id]
	if !ok {
		diags.AddAttributeError(path.Root("id"), "Policy not found",
			fmt.Sprintf("The organization has no policy %s (list_policies does not list it). It may have been deleted, or the id is of another organization.", id))
		return
	}
	*m = policyDataSourceFlatten(*got)
}
