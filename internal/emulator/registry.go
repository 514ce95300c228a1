package emulator

import (
	"encoding/json"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// submitSpec describes one submit endpoint.
type submitSpec struct {
	client.Operation // path, type and record keys, from the client's table
	// check decodes and validates the parameters at submit time; a
	// problem here is a 400 and no activity is created.
	check func(raw json.RawMessage) *apiError
	// run applies the activity to state (at once, or after consensus).
	// It returns the result object, or the failure that ends the activity
	// FAILED (an unknown id, a policy expression that does not parse...).
	run func(s *Server, who *caller, raw json.RawMessage) (any, *client.Status)
	// vote marks approve_activity and reject_activity, which vote on
	// another activity instead of creating one.
	vote string
}

// queryHandler answers one query.
type queryHandler func(s *Server, who *caller, body []byte) (any, *apiError)

var (
	submitOps = map[string]submitSpec{}
	queryOps  = map[string]queryHandler{}
)

// registerSubmit declares an activity endpoint with typed parameters P.
// required lists the paths that must be present (see requireFields);
// validate checks values (enums, formats, limits).
func registerSubmit[P any](op client.Operation, required []string,
	validate func(p *P) *apiError, run func(s *Server, who *caller, p *P) (any, *client.Status)) {
	submitOps[op.Name] = submitSpec{
		Operation: op,
		check: func(raw json.RawMessage) *apiError {
			var p P
			if e := decodeStrict(raw, &p, "parameters"); e != nil {
				return e
			}
			if e := requireFields(raw, "parameters", required...); e != nil {
				return e
			}
			if validate != nil {
				return validate(&p)
			}
			return nil
		},
		run: func(s *Server, who *caller, raw json.RawMessage) (any, *client.Status) {
			var p P
			if err := json.Unmarshal(raw, &p); err != nil { // checked at submit time
				return nil, failure(client.CodeInternal, "decoding stored parameters: %v", err)
			}
			return run(s, who, &p)
		},
	}
}

// registerQuery declares a query endpoint with typed request R.
func registerQuery[R any](op client.Query, required []string, handle func(s *Server, who *caller, req *R) (any, *apiError)) {
	queryOps[string(op)] = func(s *Server, who *caller, body []byte) (any, *apiError) {
		var req R
		if e := decodeStrict(body, &req, ""); e != nil {
			return nil, e
		}
		if e := requireFields(body, "", append([]string{"organizationId"}, required...)...); e != nil {
			return nil, e
		}
		return handle(s, who, &req)
	}
}

// failure builds an activity failure.
func failure(code int, format string, args ...any) *client.Status {
	return &client.Status{Code: code, Message: sprintf(format, args...), Details: []json.RawMessage{}}
}

// notFound is the failure of an activity that names an unknown id.
func notFound(format string, args ...any) *client.Status {
	return failure(client.CodeNotFound, format, args...)
}
