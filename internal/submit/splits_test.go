package submit

import (
	"errors"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestSplitsBatch: which batch failures are retried item by item.
func TestSplitsBatch(t *testing.T) {
	failed := func(code int) error {
		return &client.ActivityError{ActivityID: "a", Status: client.StatusFailed, Failure: &client.Status{Code: code, Message: "m"}}
	}
	for name, tc := range map[string]struct {
		err   error
		split bool
	}{
		"an expression the service cannot parse": {failed(client.CodeInvalidArgument), true},
		"an identity that is taken":              {failed(client.CodeAlreadyExists), true},
		"an object that is gone":                 {failed(client.CodeNotFound), true},
		"refused as invalid":                     {&client.APIError{Operation: "create_policies", HTTPStatus: 400, Status: client.Status{Code: 3}}, true},
		"denied by a policy":                     {failed(client.CodePermissionDenied), false},
		"rejected by an approver":                {&client.ActivityError{Status: client.StatusRejected}, false},
		"waiting for approval":                   {&client.ConsensusNeededError{ActivityID: "a"}, false},
		"credentials refused":                    {&client.APIError{Operation: "create_policies", HTTPStatus: 403}, false},
		"a lost answer":                          {&client.LostAnswerError{Operation: "create_policies", Err: errors.New("EOF")}, false},
		"unavailable":                            {&client.RetryError{Attempts: 6, Last: &client.APIError{HTTPStatus: 503}}, false},
	} {
		if got := splitsBatch(tc.err); got != tc.split {
			t.Errorf("%s: splitsBatch = %v, want %v", name, got, tc.split)
		}
	}
}
