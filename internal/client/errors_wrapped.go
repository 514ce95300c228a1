package client

import (
	"errors"
	"fmt"
)

// The wrappers below keep the parts of a failure apart, so that Diagnose
// can put the cause first and the context after it. Each Error() reads
// as the text it replaced did.

// RetryError is a request that failed on every attempt it was allowed.
type RetryError struct {
	Attempts int
	Last     error  // the last attempt's failure: an *APIError or a *NetworkError
	Why      string // why no further attempt was made, when not the limit
	Cause    error  // what stopped the retries early (the context), if anything
}

func (e *RetryError) Error() string {
	why := ""
	if e.Why != "" {
		why = ": " + e.Why
	}
	return fmt.Sprintf("%v (gave up after %s%s)", e.Last, attempts(e.Attempts), why)
}

func (e *RetryError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Last, e.Cause}
	}
	return []error{e.Last}
}

// NetworkError is an attempt that got no answer from the service: a
// refused or dropped connection, a failed name lookup, a TLS failure, a
// timeout. Err is the transport's error, which names the URL.
type NetworkError struct {
	Operation string
	Err       error
}

func (e *NetworkError) Error() string { return e.Operation + ": " + e.Err.Error() }

func (e *NetworkError) Unwrap() error { return e.Err }

// StepError says what the client was doing when Err happened, such as
// looking for an activity to adopt before a submit.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }

func (e *StepError) Unwrap() error { return e.Err }

// NotedError is an error with a note that only its caller can add, such
// as who rejected an activity or what a timeout it waited was; the typed
// error stays reachable, and the provider renders the note after the
// cause (NoteOf).
type NotedError struct {
	Err  error
	Note string
}

func (e *NotedError) Error() string { return e.Err.Error() + ". " + e.Note }

func (e *NotedError) Unwrap() error { return e.Err }

// NoteOf is err's NotedError note, or "".
func NoteOf(err error) string {
	var n *NotedError
	if errors.As(err, &n) {
		return n.Note
	}
	return ""
}
