package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrNotFound matches, with errors.Is, every error that says the object
// asked for does not exist: an HTTP 404, a gRPC NOT_FOUND code in an error
// body, or an activity that failed with NOT_FOUND.
var ErrNotFound = errors.New("not found")

// The service's status codes (gRPC numbering), as they appear in Status.Code:
// the body of a non-2xx answer and an activity's failure. Only the codes
// something in this repository reads or writes are named.
const (
	CodeInvalidArgument    = 3  // INVALID_ARGUMENT
	CodeNotFound           = 5  // NOT_FOUND
	CodeAlreadyExists      = 6  // ALREADY_EXISTS
	CodePermissionDenied   = 7  // PERMISSION_DENIED
	CodeResourceExhausted  = 8  // RESOURCE_EXHAUSTED (rate limited, too large)
	CodeFailedPrecondition = 9  // FAILED_PRECONDITION
	CodeUnimplemented      = 12 // UNIMPLEMENTED
	CodeInternal           = 13 // INTERNAL
	CodeUnavailable        = 14 // UNAVAILABLE
	CodeUnauthenticated    = 16 // UNAUTHENTICATED
)

// ConfigField names the Config field a ConfigError is about.
type ConfigField string

// The Config fields that New can refuse.
const (
	FieldBaseURL        ConfigField = "BaseURL"
	FieldOrganizationID ConfigField = "OrganizationID"
	FieldAPIPublicKey   ConfigField = "APIPublicKey"
	FieldAPIPrivateKey  ConfigField = "APIPrivateKey" // also a pair that does not match
	FieldRetries        ConfigField = "Retries"
	FieldBudget         ConfigField = "Budget" // NewRequestBudget's rate
)

// ConfigError is a configuration value that New, ParseAPIKey or
// CheckBaseURL refuses. Field says which one, so that a caller can point
// at its own setting with errors.As instead of reading the message; the
// message is Err's, and never holds the private key.
type ConfigError struct {
	Field ConfigField
	Err   error
}

func (e *ConfigError) Error() string { return e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }

// configError is a *ConfigError about field.
func configError(field ConfigField, format string, args ...any) error {
	return &ConfigError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Status is the service's error shape: the body of a non-2xx answer and
// an activity's failure.
type Status struct {
	Code    int               `json:"code"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
}

// APIError is a non-2xx answer to a request.
type APIError struct {
	Operation  string // e.g. "get_policy"
	HTTPStatus int
	Status            // decoded body; Message summarises the body when it was not JSON
	RequestID  string // X-Request-Id of the answer, when the service sent one
	// NotService: the answer is not the custody service's (see
	// notTheService): the base URL points elsewhere, and asking again
	// cannot change that.
	NotService bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Operation, e.HTTPStatus)
	if e.Code != 0 {
		fmt.Fprintf(&b, " (code %d)", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrNotFound) true for a 404 or NOT_FOUND.
func (e *APIError) Is(target error) bool {
	return target == ErrNotFound && (e.HTTPStatus == http.StatusNotFound || e.Code == CodeNotFound)
}

// ActivityError is an activity that ended FAILED or REJECTED.
type ActivityError struct {
	ActivityID  string
	Type        string
	Status      string
	Fingerprint string
	Failure     *Status // set for FAILED
}

func (e *ActivityError) Error() string {
	msg := fmt.Sprintf("activity %s (%s) ended %s", e.ActivityID, e.Type, e.Status)
	if e.Failure != nil && e.Failure.Message != "" {
		msg += ": " + e.Failure.Message
	}
	return msg
}

// Is makes errors.Is(err, ErrNotFound) true for an activity that failed
// because the object it names does not exist.
func (e *ActivityError) Is(target error) bool {
	return target == ErrNotFound && e.Failure != nil && e.Failure.Code == CodeNotFound
}

// ConsensusNeededError is an activity that cannot complete until others
// vote (ACTIVITY_STATUS_CONSENSUS_NEEDED) or, alike for a client, until
// authenticators are presented (ACTIVITY_STATUS_AUTHENTICATORS_NEEDED). It
// is not a failure: the activity may still complete once consensus holds;
// WaitForActivity resumes waiting.
type ConsensusNeededError struct {
	ActivityID  string
	Type        string
	Status      string // ACTIVITY_STATUS_CONSENSUS_NEEDED or ..._AUTHENTICATORS_NEEDED
	Fingerprint string
}

func (e *ConsensusNeededError) Error() string {
	return fmt.Sprintf("activity %s (%s) is %s: it needs approval before it can complete (fingerprint %s)",
		e.ActivityID, e.Type, e.Status, e.Fingerprint)
}
