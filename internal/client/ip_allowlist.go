package client

import (
	"fmt"
	"strconv"
	"time"
)

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
	CIDR  string `json:"cidr"`
	Label string `json:"label,omitempty"`
	// CreatedAt is milliseconds since the epoch as a decimal string, as the
	// reference describes it; Created reads it.
	CreatedAt string `json:"createdAt,omitempty"`
}

// Created is when the rule was added. It reads createdAt as the reference
// describes it (milliseconds since the epoch, a decimal string) and, since
// a service may differ from its description, as RFC 3339 too.
func (r IPAllowlistRule) Created() (time.Time, error) {
	if ms, err := strconv.ParseInt(r.CreatedAt, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, r.CreatedAt); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("ip allowlist rule %s: createdAt %q is neither milliseconds since the epoch nor RFC 3339", r.CIDR, r.CreatedAt)
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
