package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewPolicyEvaluationsDataSource is the custody_policy_evaluations data source.
func NewPolicyEvaluationsDataSource() datasource.DataSource {
	return newDataSource("policy_evaluations", policyEvaluationsSchema(), readPolicyEvaluations)
}

type policyEvaluationsDataSourceModel struct {
	ActivityID  types.String                   `tfsdk:"activity_id"`
	Evaluations []policyEvaluationsRecordModel `tfsdk:"evaluations"`
}

// policyEvaluationsRecordModel is one evaluation record (one per vote). The
// record's activityId and organizationId are not mapped: they always equal
// the activity_id input and the provider's organization.
type policyEvaluationsRecordModel struct {
	ID                types.String                    `tfsdk:"id"`
	VoteID            types.String                    `tfsdk:"vote_id"`
	PolicyEvaluations []policyEvaluationsOutcomeModel `tfsdk:"policy_evaluations"`
	CreatedAt         timetypes.RFC3339               `tfsdk:"created_at"`
}

type policyEvaluationsOutcomeModel struct {
	PolicyID types.String `tfsdk:"policy_id"`
	Outcome  types.String `tfsdk:"outcome"`
}

func policyEvaluationsSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Reads how the organization's policies were evaluated for an activity " +
			"(`get_policy_evaluations`): one record per vote cast on it, each listing the outcome of every policy that " +
			"applied. Use it to find out why an activity was allowed, denied or sent to consensus.",
		Attributes: map[string]schema.Attribute{
			"activity_id": requiredArgument("The id of the activity whose evaluations to read.", activityIDShape),
			"evaluations": computedList("The evaluation records, one per vote, in the order the service returns them; empty when "+
				"none were recorded.",
				map[string]schema.Attribute{
					"id":      computedString("The evaluation record's id."),
					"vote_id": computedString("The vote that triggered the evaluation (see `votes[*].id` of `custody_activity`)."),
					"policy_evaluations": computedList("The outcome of each policy that applied to the activity; policies whose "+
						"condition did not hold are not listed.",
						map[string]schema.Attribute{
							"policy_id": computedString("The evaluated policy's id; null if the service omits it."),
							"outcome": computedString("The outcome: `OUTCOME_ALLOW`, `OUTCOME_DENY_EXPLICIT`, `OUTCOME_DENY_IMPLICIT`, " +
								"`OUTCOME_REQUIRES_CONSENSUS`, `OUTCOME_REJECTED`, `OUTCOME_ERROR`, " +
								"`OUTCOME_REQUIRES_AUTHENTICATORS` or `OUTCOME_TIME_INACTIVE`; null if the service omits it."),
						}),
					"created_at": computedTimestamp("When the evaluation was recorded, RFC 3339 (UTC)."),
				}),
		},
	}
}

func readPolicyEvaluations(ctx context.Context, d *dataSourceBase, m *policyEvaluationsDataSourceModel, diags *diag.Diagnostics) {
	id := m.ActivityID.ValueString()
	got, err := d.pd.client.GetPolicyEvaluations(ctx, client.GetPolicyEvaluationsRequest{ActivityID: id})
	if err != nil {
		addAPIError(diags, "Error reading policy evaluations", client.QueryGetPolicyEvaluations, "activity "+id, err)
		return
	}
	m.Evaluations = listOf(got.PolicyEvaluations, func(r client.PolicyEvaluationRecord) policyEvaluationsRecordModel {
		outcomes := listOf(r.PolicyEvaluations, func(e client.PolicyEvaluation) policyEvaluationsOutcomeModel {
			return policyEvaluationsOutcomeModel{PolicyID: optionalString(e.PolicyID), Outcome: optionalString(e.Outcome)}
		})
		return policyEvaluationsRecordModel{ID: types.StringValue(r.ID), VoteID: types.StringValue(r.VoteID),
			PolicyEvaluations: outcomes, CreatedAt: timestampValue(r.CreatedAt)}
	})
}
