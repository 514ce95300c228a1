package client

// What an allowlist does when its evaluation fails.
const (
	OnEvaluationErrorAllow = "ALLOW"
	OnEvaluationErrorDeny  = "DENY"
)

// IPAllowlistRuleParams is one rule to set.
type IPAllowlistRuleParams struct {
	CIDR  string `json:"cidr"`
	Label string `json:"label,omitempty"`
}

// SetIPAllowlistParams are the parameters of set_ip_allowlist. An empty
// PublicKey sets the organization-level allowlist; Enabled is meaningful
// only there.
type SetIPAllowlistParams struct {
	PublicKey         string                  `json:"publicKey,omitempty"`
	Enabled           *bool                   `json:"enabled,omitempty"`
	Rules             []IPAllowlistRuleParams `json:"rules"`
	OnEvaluationError string                  `json:"onEvaluationError,omitempty"`
}

// RemoveIPAllowlistParams are the parameters of remove_ip_allowlist.
type RemoveIPAllowlistParams struct {
	PublicKey string `json:"publicKey,omitempty"`
}

// IPAllowlistRule is a rule as stored.
type IPAllowlistRule struct {
	CIDR      string `json:"cidr"`
	Label     string `json:"label,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
}

// IPAllowlist is an allowlist as stored.
type IPAllowlist struct {
	OrganizationID    string            `json:"organizationId"`
	Rules             []IPAllowlistRule `json:"rules"`
	PublicKey         string            `json:"publicKey,omitempty"`
	Enabled           *bool             `json:"enabled,omitempty"`
	OnEvaluationError string            `json:"onEvaluationError,omitempty"`
}

// GetIPAllowlistRequest is the body of get_ip_allowlist.
type GetIPAllowlistRequest struct {
	OrganizationID string `json:"organizationId"`
	PublicKey      string `json:"publicKey,omitempty"`
}

// GetIPAllowlistResponse is the answer of get_ip_allowlist.
type GetIPAllowlistResponse struct {
	Allowlist IPAllowlist `json:"allowlist"`
}
