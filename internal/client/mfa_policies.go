package client

// AuthenticationMethod is one way to satisfy a step.
type AuthenticationMethod struct {
	Type string `json:"type"` // AUTHENTICATION_TYPE_...
	ID   string `json:"id,omitempty"`
}

// RequiredAuthenticationMethod is one step: any listed method satisfies it.
type RequiredAuthenticationMethod struct {
	Any []AuthenticationMethod `json:"any"`
}

// MfaPolicy is an MFA policy of a user.
type MfaPolicy struct {
	MfaPolicyID                   string                         `json:"mfaPolicyId"`
	MfaPolicyName                 string                         `json:"mfaPolicyName"`
	Condition                     string                         `json:"condition"`
	RequiredAuthenticationMethods []RequiredAuthenticationMethod `json:"requiredAuthenticationMethods"`
	Order                         int64                          `json:"order"`
	Notes                         string                         `json:"notes,omitempty"`
	CreatedAt                     Timestamp                      `json:"createdAt"`
	UpdatedAt                     Timestamp                      `json:"updatedAt"`
}

// GetMfaPolicyRequest is the body of get_mfa_policy.
type GetMfaPolicyRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
	MfaPolicyID    string `json:"mfaPolicyId"`
}

// GetMfaPolicyResponse is the answer of get_mfa_policy.
type GetMfaPolicyResponse struct {
	MfaPolicy MfaPolicy `json:"mfaPolicy"`
}

// GetMfaPoliciesRequest is the body of get_mfa_policies.
type GetMfaPoliciesRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
}

// GetMfaPoliciesResponse is the answer of get_mfa_policies.
type GetMfaPoliciesResponse struct {
	MfaPolicies []MfaPolicy `json:"mfaPolicies"`
}
