package client

import (
	"context"
	"errors"
)

// GetActivityRequest is the body of get_activity.
type GetActivityRequest struct {
	OrganizationID string `json:"organizationId"`
	ActivityID     string `json:"activityId"`
}

// GetActivity reads one activity (timestamps in the {seconds, nanos} shape).
func (c *Client) GetActivity(ctx context.Context, req GetActivityRequest) (*Activity, error) {
	resp, err := query[ActivityResponse](ctx, c, QueryGetActivity, &req, &req.OrganizationID)
	if err != nil {
		return nil, err
	}
	// A body such as {} or null decodes without error; it must not pass
	// for an activity (the poll would read its empty status).
	if resp.Activity.ID == "" {
		return nil, errors.New("get_activity: the answer holds no activity id")
	}
	return &resp.Activity, nil
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

// ListActivities lists activities, filtered by status and type, one page.
func (c *Client) ListActivities(ctx context.Context, req ListActivitiesRequest) (*ListActivitiesResponse, error) {
	return query[ListActivitiesResponse](ctx, c, QueryListActivities, &req, &req.OrganizationID)
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

// GetPolicyEvaluations reads the policy evaluations of an activity.
func (c *Client) GetPolicyEvaluations(ctx context.Context, req GetPolicyEvaluationsRequest) (*GetPolicyEvaluationsResponse, error) {
	return query[GetPolicyEvaluationsResponse](ctx, c, QueryGetPolicyEvaluations, &req, &req.OrganizationID)
}
