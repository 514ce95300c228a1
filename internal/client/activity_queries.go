package client

// GetActivityRequest is the body of get_activity.
type GetActivityRequest struct {
	OrganizationID string `json:"organizationId"`
	ActivityID     string `json:"activityId"`
}

// Pagination selects a page of a list.
type Pagination struct {
	Limit  string `json:"limit,omitempty"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// ListActivitiesRequest is the body of list_activities.
type ListActivitiesRequest struct {
	OrganizationID    string      `json:"organizationId"`
	FilterByStatus    []string    `json:"filterByStatus,omitempty"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
	FilterByType      []string    `json:"filterByType,omitempty"`
}

// ListActivitiesResponse is the answer of list_activities.
type ListActivitiesResponse struct {
	Activities []Activity `json:"activities"`
}

// GetPolicyEvaluationsRequest is the body of get_policy_evaluations, which
// names one activity as get_activity does.
type GetPolicyEvaluationsRequest = GetActivityRequest

// GetPolicyEvaluationsResponse is the answer of get_policy_evaluations.
type GetPolicyEvaluationsResponse struct {
	PolicyEvaluations []PolicyEvaluationRecord `json:"policyEvaluations"`
}

// PolicyEvaluationRecord is the evaluation of the policies for one vote.
type PolicyEvaluationRecord struct {
	ID                string             `json:"id"`
	ActivityID        string             `json:"activityId"`
	OrganizationID    string             `json:"organizationId"`
	VoteID            string             `json:"voteId"`
	PolicyEvaluations []PolicyEvaluation `json:"policyEvaluations"`
	CreatedAt         Timestamp          `json:"createdAt"`
}

// The outcomes of a policy evaluation (spec section 3): what one policy
// gives for one request, and what the policy set decides.
const (
	OutcomeAllow                  = "OUTCOME_ALLOW"
	OutcomeDenyExplicit           = "OUTCOME_DENY_EXPLICIT"
	OutcomeDenyImplicit           = "OUTCOME_DENY_IMPLICIT"
	OutcomeRequiresConsensus      = "OUTCOME_REQUIRES_CONSENSUS"
	OutcomeRejected               = "OUTCOME_REJECTED"
	OutcomeError                  = "OUTCOME_ERROR"
	OutcomeRequiresAuthenticators = "OUTCOME_REQUIRES_AUTHENTICATORS"
	OutcomeTimeInactive           = "OUTCOME_TIME_INACTIVE"
)

// PolicyEvaluation is one policy's outcome (OutcomeAllow, ...).
type PolicyEvaluation struct {
	PolicyID string `json:"policyId,omitempty"`
	Outcome  string `json:"outcome,omitempty"`
}
