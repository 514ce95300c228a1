package provider

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func apiErr(op string, status, code int, msg string) *client.APIError {
	return &client.APIError{Operation: op, HTTPStatus: status, Status: client.Status{Code: code, Message: msg}, RequestID: "req-1"}
}

// TestRenderAPIErrorEveryClass renders one error of each class and checks
// the order of its parts: the cause leads, the service's words come once,
// then the ids, the fix and the context, and no sentence is said twice.
func TestRenderAPIErrorEveryClass(t *testing.T) {
	const adoptStep = "looking for an earlier ACTIVITY_TYPE_CREATE_POLICIES activity still waiting for approval"
	identity := &client.IdentityError{BaseURL: "https://custody.example", OrganizationID: "org-9", PublicKey: "02abc",
		Err: apiErr(client.QueryWhoami, 403, client.CodePermissionDenied, "API key 02abc is not registered in organization org-9")}
	tests := []struct {
		name    string
		err     error
		lead    string   // the first sentence
		said    string   // the service's (or transport's) words, exactly once
		fix     string   // in the fix
		context []string // after the fix, in this order
	}{
		{"credentials", apiErr(client.QueryListPolicies, 403, client.CodePermissionDenied, "API key 02ab belongs to no user"),
			"create_policies for policy \"ux\" failed: the service refused the provider's credentials", "API key 02ab belongs to no user",
			"CUSTODY_API_PUBLIC_KEY", []string{"list_policies answered HTTP 403 (code 7), request id req-1"}},
		{"credentials in the adoption check", &client.StepError{Step: adoptStep,
			Err: apiErr(client.QueryListActivities, 403, client.CodePermissionDenied, "API key 02ab is not registered in organization o")},
			"create_policies for policy \"ux\" failed: the service refused the provider's credentials",
			"API key 02ab is not registered in organization o", "CUSTODY_ORGANIZATION_ID",
			[]string{"list_activities answered HTTP 403", "while " + adoptStep}},
		{"IP allowlist", apiErr(client.OpCreatePolicies.Name, 403, client.CodePermissionDenied, "address 10.0.0.1 is not in the IP allowlist"),
			"the organization's IP allowlist refuses this machine's address", "address 10.0.0.1 is not in the IP allowlist",
			"another API key that is still allowed", nil},
		{"not found", apiErr(client.QueryListPolicies, 404, client.CodeNotFound, "policy p-1 not found"),
			"the service has no such object", "policy p-1 not found", "Check the id", nil},
		{"invalid", apiErr(client.OpCreatePolicies.Name, 400, client.CodeInvalidArgument, "policyName is required"),
			"the service refused the request as invalid", "policyName is required", "Correct what the service's message names", nil},
		{"rate limited", &client.RetryError{Attempts: 6, Last: apiErr(client.OpCreatePolicies.Name, 429, client.CodeResourceExhausted, "slow down")},
			"the service kept rate limiting the request after 6 attempts", "slow down", "max_retries (CUSTODY_MAX_RETRIES)", nil},
		{"unavailable", &client.RetryError{Attempts: 6, Last: apiErr(client.OpCreatePolicies.Name, 503, client.CodeUnavailable, "down")},
			"the service stayed unavailable after 6 attempts", "down", "nothing was done twice", nil},
		{"network", &client.RetryError{Attempts: 3, Last: &client.NetworkError{Operation: client.OpCreatePolicies.Name,
			Err: errors.New(`Post "https://custody.example/x": dial tcp: connect: connection refused`)}},
			"the service could not be reached after 3 attempts", "connection refused", "CUSTODY_BASE_URL", nil},
		{"TLS", &client.NetworkError{Operation: client.OpCreatePolicies.Name,
			Err: fmt.Errorf("Post \"https://custody.example/x\": %w", x509.UnknownAuthorityError{})},
			"the TLS connection to the service failed", "certificate signed by unknown authority", "trusted by this machine", nil},
		{"activity failed", &client.ActivityError{ActivityID: "act-1", Type: client.OpCreatePolicies.Type, Status: client.StatusFailed,
			Fingerprint: "fp-1", Failure: &client.Status{Code: client.CodeInvalidArgument, Message: "condition does not parse"}},
			"activity act-1 failed", "condition does not parse", "The activity changed nothing", nil},
		{"activity rejected", &client.NotedError{Err: &client.ActivityError{ActivityID: "act-2", Type: client.OpCreatePolicies.Type,
			Status: client.StatusRejected}, Note: "Rejected by alice (user u-1)."},
			"activity act-2 was rejected", "", "submits a new activity", nil},
		{"waiting for approval", &client.NotedError{Err: &client.ConsensusNeededError{ActivityID: "act-3", Type: client.OpCreatePolicies.Type,
			Status: client.StatusConsensusNeeded, Fingerprint: "fp-3"}, Note: "It was still waiting after the timeout of 20m0s."},
			"activity act-3 still waits for approval", "", "adopts its result", nil},
		{"credentials check", identity,
			"The provider's credentials check failed: the service at https://custody.example does not accept API key 02abc for organization org-9",
			"API key 02abc is not registered in organization org-9", "CUSTODY_API_PRIVATE_KEY",
			[]string{"the provider's credentials check (whoami) answered HTTP 403"}},
		{"interrupted", fmt.Errorf("list_policies: %w", context.Canceled), "it was interrupted or ran out of time", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderDiagnosis(client.OpCreatePolicies.Name, `policy "ux"`, client.Diagnose(tt.err), client.NoteOf(tt.err))
			if !strings.HasPrefix(got, tt.lead) && !strings.Contains(strings.SplitN(got, "\n", 2)[0], tt.lead) {
				t.Errorf("should lead with %q:\n%s", tt.lead, got)
			}
			if tt.said != "" && strings.Count(got, tt.said) != 1 {
				t.Errorf("should say %q exactly once:\n%s", tt.said, got)
			}
			if !strings.Contains(got, tt.fix) {
				t.Errorf("should advise %q:\n%s", tt.fix, got)
			}
			last := strings.Index(got, tt.fix)
			for _, c := range tt.context {
				at := strings.Index(got, c)
				if at < last {
					t.Errorf("context %q should come after the cause, the fix and the context before it:\n%s", c, got)
				}
				last = at
			}
			if dup := repeatedSentence(got); dup != "" {
				t.Errorf("says %q twice:\n%s", dup, got)
			}
			// A line that starts so reads as a second error (and grep
			// '^Error' counts it).
			for _, line := range strings.Split(got, "\n") {
				if strings.HasPrefix(line, "Error:") {
					t.Errorf("a line of the detail starts with \"Error:\": %q", line)
				}
			}
			var ex *client.NotedError
			if errors.As(tt.err, &ex) && strings.Count(got, ex.Note) != 1 {
				t.Errorf("should give the note %q once:\n%s", ex.Note, got)
			}
		})
	}
}

// repeatedSentence returns a sentence that occurs twice in s, or "".
func repeatedSentence(s string) string {
	seen := map[string]bool{}
	for _, sentence := range regexp.MustCompile(`[.:]\s+|\n+`).Split(s, -1) {
		sentence = strings.TrimSpace(sentence)
		if len(sentence) < 12 {
			continue
		}
		if seen[sentence] {
			return sentence
		}
		seen[sentence] = true
	}
	return ""
}

// TestCredentialsCheckReportedUnderTheConfiguration: a failed check is
// reported (by Configure, once) under a summary that names the provider's
// configuration, whatever call met it, and whole.
func TestCredentialsCheckReportedUnderTheConfiguration(t *testing.T) {
	identity := &client.IdentityError{BaseURL: "https://custody.example", OrganizationID: "org-9", PublicKey: "02abc",
		Err: apiErr(client.QueryWhoami, 403, client.CodePermissionDenied, "not registered")}
	var diags diag.Diagnostics
	addAPIError(&diags, "Error reading policy", "configuring the provider", "", identity)
	if len(diags) != 1 || diags[0].Summary() != "Invalid provider credentials" || !strings.Contains(diags[0].Detail(), "not registered") {
		t.Fatalf("want one whole error under the credentials summary, got %v", diags)
	}
}
