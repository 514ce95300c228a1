package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// apiError is a request-level failure: an HTTP status and the service's
// {code, message, details} body.
type apiError struct {
	status  int
	code    int
	message string
}

func (e *apiError) Error() string { return e.message }

func errInvalid(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, client.CodeInvalidArgument, fmt.Sprintf(format, args...)}
}

func errNotFound(format string, args ...any) *apiError {
	return &apiError{http.StatusNotFound, client.CodeNotFound, fmt.Sprintf(format, args...)}
}

func errUnauthenticated(format string, args ...any) *apiError {
	return &apiError{http.StatusUnauthorized, client.CodeUnauthenticated, fmt.Sprintf(format, args...)}
}

func errDenied(format string, args ...any) *apiError {
	return &apiError{http.StatusForbidden, client.CodePermissionDenied, fmt.Sprintf(format, args...)}
}

func errInternal(format string, args ...any) *apiError {
	return &apiError{http.StatusInternalServerError, client.CodeInternal, fmt.Sprintf(format, args...)}
}

func errMethod(got, want string) *apiError {
	return &apiError{http.StatusMethodNotAllowed, client.CodeUnimplemented, fmt.Sprintf("method %s is not allowed here; use %s", got, want)}
}

// response is an answer not yet written, so that a fault can drop it.
type response struct {
	status int
	header http.Header
	body   []byte
}

func jsonResponse(status int, v any) *response {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResponse(errInternal("encoding the answer: %v", err))
	}
	return &response{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: b}
}

func errorResponse(e *apiError) *response {
	r := jsonResponse(e.status, client.Status{Code: e.code, Message: e.message, Details: []json.RawMessage{}})
	return r
}

func (r *response) write(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body)
}

// readBody reads at most limit bytes; more is 413.
func readBody(r *http.Request, limit int64) ([]byte, *apiError) {
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, errInvalid("reading the request body: %v", err)
	}
	if int64(len(b)) > limit {
		return nil, &apiError{http.StatusRequestEntityTooLarge, client.CodeResourceExhausted, fmt.Sprintf("request body exceeds the limit of %d bytes", limit)}
	}
	return b, nil
}

// routeKind says which family a path belongs to.
type routeKind string

const (
	routeSubmit  routeKind = "submit"
	routeQuery   routeKind = "query"
	routeKeySet  routeKind = "jwks"
	routeDebug   routeKind = "debug"
	routeUnknown routeKind = "unknown"
)

// route splits /public/v1/{submit|query}/<op>.
func route(path string) (routeKind, string, bool) {
	switch {
	case path == client.WebhookKeySetPath:
		return routeKeySet, "jwks", true
	case strings.HasPrefix(path, "/debug/"):
		return routeDebug, strings.TrimPrefix(path, "/debug/"), true
	}
	for _, k := range []routeKind{routeSubmit, routeQuery} {
		prefix := "/public/v1/" + string(k) + "/"
		if op, ok := strings.CutPrefix(path, prefix); ok && op != "" && !strings.Contains(op, "/") {
			return k, op, true
		}
	}
	return routeUnknown, "", false
}
