package client

// Policy effects.
const (
	EffectAllow = "EFFECT_ALLOW"
	EffectDeny  = "EFFECT_DENY"
)

// PolicyParams is one policy to create.
type PolicyParams struct {
	PolicyName string `json:"policyName"`
	Effect     string `json:"effect"`
	Condition  string `json:"condition,omitempty"`
	Consensus  string `json:"consensus,omitempty"`
	Notes      string `json:"notes"`
	Time       string `json:"time,omitempty"`
}

// CreatePoliciesParams are the parameters of create_policies.
type CreatePoliciesParams struct {
	Policies []PolicyParams `json:"policies"`
}

// UpdatePolicyParams are the parameters of update_policy (V2). Fields left
// nil are not sent; the pointers let a caller send an empty string.
type UpdatePolicyParams struct {
	PolicyID        string  `json:"policyId"`
	PolicyName      *string `json:"policyName,omitempty"`
	PolicyEffect    *string `json:"policyEffect,omitempty"`
	PolicyCondition *string `json:"policyCondition,omitempty"`
	PolicyConsensus *string `json:"policyConsensus,omitempty"`
	PolicyNotes     *string `json:"policyNotes,omitempty"`
	Time            *string `json:"time,omitempty"`
}

// PolicyIDResult names one policy: the result of update_policy and
// delete_policy, and the parameters of delete_policy, which are the same
// object on the wire.
type PolicyIDResult struct {
	PolicyID string `json:"policyId"`
}

// DeletePolicyParams are the parameters of delete_policy.
type DeletePolicyParams = PolicyIDResult

// PolicyIDsResult names several policies: the result of create_policies
// (the new ids, in the order of the request) and of delete_policies (the
// deleted ids), and the parameters of delete_policies, the same object on
// the wire.
type PolicyIDsResult struct {
	PolicyIDs []string `json:"policyIds"`
}

// CreatePoliciesResult is the result of create_policies.
type CreatePoliciesResult = PolicyIDsResult

// DeletePoliciesParams are the parameters of delete_policies: several
// policies in one activity, all or none.
type DeletePoliciesParams = PolicyIDsResult

// Policy is a policy as the service stores it.
type Policy struct {
	PolicyID   string    `json:"policyId"`
	PolicyName string    `json:"policyName"`
	Effect     string    `json:"effect"`
	CreatedAt  Timestamp `json:"createdAt"`
	UpdatedAt  Timestamp `json:"updatedAt"`
	Notes      string    `json:"notes"`
	Consensus  string    `json:"consensus"`
	Condition  string    `json:"condition"`
	Time       string    `json:"time,omitempty"`
}

// GetPolicyRequest is the body of get_policy.
type GetPolicyRequest struct {
	OrganizationID string `json:"organizationId"`
	PolicyID       string `json:"policyId"`
}

// GetPolicyResponse is the answer of get_policy.
type GetPolicyResponse struct {
	Policy Policy `json:"policy"`
}

// ListPoliciesRequest is the body of list_policies.
type ListPoliciesRequest = OrganizationRequest

// ListPoliciesResponse is the answer of list_policies.
type ListPoliciesResponse struct {
	Policies []Policy `json:"policies"`
}
