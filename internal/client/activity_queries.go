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

// PolicyEvaluation is one policy's outcome (OUTCOME_ALLOW, ...).
type PolicyEvaluation struct {
	PolicyID string `json:"policyId,omitempty"`
	Outcome  string `json:"outcome,omitempty"`
}
