package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
)

// Class is the kind of a failure, in the terms a user acts on.
type Class int

// The classes Diagnose sorts errors into.
const (
	ClassOther            Class = iota
	ClassCredentials            // the key, the organization or an IP allowlist: 401, 403
	ClassNotFound               // no such object: 404, NOT_FOUND
	ClassInvalid                // the request was refused as wrong: any other 4xx
	ClassUnavailable            // 429 or 5xx on every attempt allowed
	ClassNetwork                // no answer: connection, name lookup, TLS, timeout
	ClassActivityFailed         // an activity ended FAILED
	ClassActivityRejected       // an activity ended REJECTED
	ClassAwaitingApproval       // an activity still waits for consensus or authenticators
	ClassCanceled               // the caller's context ended it
	ClassNotService             // what answered is not the custody service (APIError.NotService)
)

// Diagnosis is an error taken apart: its class, the cause's facts, and the
// steps it happened in, so that each can be said once and in order.
type Diagnosis struct {
	Class Class
	// Operation is the request that failed, such as "list_activities".
	Operation string
	// Message is what the service said (an answer's or an activity
	// failure's message), or the transport's error for ClassNetwork.
	Message    string
	HTTPStatus int
	Code       int // the service's status code, when it sent one
	RequestID  string
	// The activity concerned, for the activity classes.
	ActivityID, ActivityType, ActivityStatus, Fingerprint string
	// Attempts is how many attempts were made, when the request was
	// retried until the client gave up; GaveUp says why it stopped early.
	Attempts int
	GaveUp   string
	// TLS is a network failure in the TLS handshake or certificate.
	TLS bool
	// Steps are what the client was doing, outermost first.
	Steps []string
	// Identity is the failed identity check the error comes from, if any.
	Identity *IdentityError
}

// Diagnose classifies err and takes its parts apart. An error that is none
// of the client's is ClassOther with its text as Message.
func Diagnose(err error) Diagnosis {
	var d Diagnosis
	for e := err; e != nil; {
		switch t := e.(type) {
		case *IdentityError:
			d.Identity, e = t, t.Err
		case *StepError:
			d.Steps, e = append(d.Steps, t.Step), t.Err
		case *RetryError:
			d.Attempts, d.GaveUp, e = t.Attempts, t.Why, t.Last
		case *APIError:
			d.fromAPIError(t)
			return d
		case *NetworkError:
			d.Class, d.Operation, d.Message = ClassNetwork, t.Operation, t.Err.Error()
			d.TLS = isTLSFailure(t.Err)
			return d
		case *ActivityError:
			d.Class, d.ActivityID, d.ActivityType, d.ActivityStatus, d.Fingerprint =
				ClassActivityFailed, t.ActivityID, t.Type, t.Status, t.Fingerprint
			if t.Status == StatusRejected {
				d.Class = ClassActivityRejected
			}
			if t.Failure != nil {
				d.Message, d.Code = t.Failure.Message, t.Failure.Code
			}
			return d
		case *ConsensusNeededError:
			d.Class, d.ActivityID, d.ActivityType, d.ActivityStatus, d.Fingerprint =
				ClassAwaitingApproval, t.ActivityID, t.Type, t.Status, t.Fingerprint
			return d
		default:
			if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
				d.Class, d.Message = ClassCanceled, e.Error()
				return d
			}
			if next := errors.Unwrap(e); next != nil {
				e = next
				continue
			}
			d.Class, d.Message = ClassOther, e.Error()
			return d
		}
	}
	return d
}

func (d *Diagnosis) fromAPIError(e *APIError) {
	d.Operation, d.Message, d.HTTPStatus, d.Code, d.RequestID = e.Operation, e.Message, e.HTTPStatus, e.Code, e.RequestID
	switch {
	case e.NotService:
		d.Class = ClassNotService
	case e.HTTPStatus == http.StatusUnauthorized || e.HTTPStatus == http.StatusForbidden ||
		e.Code == CodePermissionDenied || e.Code == CodeUnauthenticated:
		d.Class = ClassCredentials
	case e.HTTPStatus == http.StatusNotFound || e.Code == CodeNotFound:
		d.Class = ClassNotFound
	case retryableStatus(e.HTTPStatus):
		d.Class = ClassUnavailable
	case e.HTTPStatus >= 400 && e.HTTPStatus <= 499:
		d.Class = ClassInvalid
	default:
		d.Class = ClassOther
	}
}

// isTLSFailure tells a TLS handshake or certificate failure from the other
// transport errors: its fix is the certificate, not the address.
func isTLSFailure(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &record) || errors.As(err, &alert) ||
		// net/http says this, with no type to match, when https:// meets a
		// plain-http port.
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}
