package client

import "encoding/json"

// Activity statuses.
const (
	StatusCreated              = "ACTIVITY_STATUS_CREATED"
	StatusPending              = "ACTIVITY_STATUS_PENDING"
	StatusCompleted            = "ACTIVITY_STATUS_COMPLETED"
	StatusFailed               = "ACTIVITY_STATUS_FAILED"
	StatusConsensusNeeded      = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
	StatusRejected             = "ACTIVITY_STATUS_REJECTED"
	StatusAuthenticatorsNeeded = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
)

// Envelope is the body of every submit.
type Envelope struct {
	Type              string          `json:"type"`
	TimestampMs       string          `json:"timestampMs"`
	OrganizationID    string          `json:"organizationId"`
	Parameters        json.RawMessage `json:"parameters"`
	GenerateAppProofs *bool           `json:"generateAppProofs,omitempty"`
}

// ActivityResponse is the answer of every submit and of get_activity.
type ActivityResponse struct {
	Activity Activity `json:"activity"`
}

// Activity is the record of one submitted mutation. Intent and Result are
// keyed by the intent and result names of its type (for example
// "createPoliciesIntent"); their shapes vary with the type.
type Activity struct {
	ID             string                     `json:"id"`
	OrganizationID string                     `json:"organizationId"`
	Status         string                     `json:"status"`
	Type           string                     `json:"type"`
	Intent         map[string]json.RawMessage `json:"intent"`
	Result         map[string]json.RawMessage `json:"result"`
	Votes          []Vote                     `json:"votes"`
	AppProofs      []AppProof                 `json:"appProofs,omitempty"`
	Fingerprint    string                     `json:"fingerprint"`
	CanApprove     bool                       `json:"canApprove"`
	CanReject      bool                       `json:"canReject"`
	CreatedAt      Timestamp                  `json:"createdAt"`
	UpdatedAt      Timestamp                  `json:"updatedAt"`
	Failure        *Status                    `json:"failure,omitempty"`
	// TimestampMs appears on submit answers only.
	TimestampMs string `json:"timestampMs,omitempty"`
}

// Vote selections.
const (
	VoteApproved = "VOTE_SELECTION_APPROVED"
	VoteRejected = "VOTE_SELECTION_REJECTED"
)

// Vote is one approval or rejection of an activity.
type Vote struct {
	ID         string    `json:"id"`
	UserID     string    `json:"userId"`
	User       User      `json:"user"`
	ActivityID string    `json:"activityId"`
	Selection  string    `json:"selection"` // VoteApproved or VoteRejected
	Message    string    `json:"message"`
	PublicKey  string    `json:"publicKey"`
	Signature  string    `json:"signature"`
	Scheme     string    `json:"scheme"`
	CreatedAt  Timestamp `json:"createdAt"`
}

// VoteParams are the parameters of approve_activity and reject_activity.
type VoteParams struct {
	Fingerprint string `json:"fingerprint"`
}

// AppProof is a verifiability proof attached to an activity.
type AppProof struct {
	Scheme       string `json:"scheme"`
	PublicKey    string `json:"publicKey"`
	ProofPayload string `json:"proofPayload"`
	Signature    string `json:"signature"`
}
